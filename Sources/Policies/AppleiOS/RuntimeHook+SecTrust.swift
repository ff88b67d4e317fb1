import PKI

/// The Security framework's evaluation functions, replaced with Frida's `Interceptor.replace`, as in as0ler's
/// `frida-scripts` (`ios/pinning/disable_sectrustEvaluate.js`, which mitmsim models) and rustymagnet3000's
/// `frida_scripts` (`scripts/c_sectrustevaluate.js`, the same without calling the original). Neither objection
/// nor HTTP Toolkit makes this hook.
extension RuntimeHook {
    /// `SecTrustEvaluate` (the original runs, then `kSecTrustResultProceed` and `errSecSuccess` are returned) and
    /// `SecTrustEvaluateWithError` (true, no error): every caller in the app's process reads success. mitmsim
    /// applies it to the evaluations the app's own code makes (`Trace.read(_:by:)`), not to the system's.
    public static let secTrustEvaluate = Self("secTrustEvaluate", target: "SecTrustEvaluate(WithError)", check: .secTrustEvaluateHook)

    /// The note beside a refusal by the system's own evaluation (URLSession's default handling, ATS) when the hook is on.
    static let systemEvaluationUnhooked = TraceStep(
        .secTrustEvaluateHook, .note,
        "SecTrustEvaluate(WithError) is hooked, but mitmsim applies the hook to the app's own calls only: whether the system's own "
            + "evaluation also goes through the patched function is not documented, so the system's verdict stands here")
}

extension TraceStep.Check {
    /// The attacker's hook on `SecTrustEvaluate(WithError)`: the app's evaluation reads success.
    public static let secTrustEvaluateHook = Self(rawValue: "secTrustEvaluateHook")
}

/// Who in the app's code calls the hooked function, and how it reads the forced answer.
struct SecTrustCaller {
    /// "SecTrustEvaluate → errSecSuccess with kSecTrustResultProceed".
    let forced: String
    /// "AFServerTrustIsValid accepts it".
    let reading: String

    static let afServerTrustIsValid = Self(forced: proceed, reading: "AFServerTrustIsValid accepts it")
    static let alamofire4TrustIsValid = Self(forced: proceed, reading: "trustIsValid returns true")
    static let alamofire5Evaluate = Self(forced: "SecTrustEvaluateWithError → true, no error", reading: "the evaluator does not throw")
    static let trustKit = Self(forced: proceed, reading: "verifyPublicKeyPin goes on to the pins")

    private static let proceed = "SecTrustEvaluate → errSecSuccess with kSecTrustResultProceed"
}

extension Trace {
    /// What the app's code reads from the evaluation just recorded (the last step): `result`, or with the
    /// `secTrustEvaluate` hook, success. A failed step stays as a note (the evaluation did run: as0ler's script
    /// calls the original), and the path is the one it built, so anything that reads the chain afterwards (a
    /// pinned-certificate or key comparison) still sees the real chain.
    @discardableResult
    mutating func read(_ result: TrustResult, by caller: SecTrustCaller) -> TrustResult {
        guard secTrustEvaluateHooked else { return result }
        guard let last = steps.last, last.outcome == .failed else {
            add(.secTrustEvaluateHook, .note, "hooked: \(caller.forced): the evaluation succeeded already, so the hook changes nothing")
            return result
        }
        steps[steps.count - 1] = TraceStep(last.check, .note, last.detail + " (that is what the hook replaces)")
        add(
            .secTrustEvaluateHook, .passed,
            "hooked: \(caller.forced), whatever the evaluation found, and \(caller.reading). The chain it built is still the real one, "
                + "so anything that compares its certificates or keys with pins afterwards compares the real chain")
        return TrustResult(path: result.path, failures: [], anchor: nil)
    }

    /// After a refusal by the system's own evaluation: the note that the hook was not applied there, when it is on.
    mutating func noteSystemEvaluationUnhooked() {
        if secTrustEvaluateHooked { steps.append(RuntimeHook.systemEvaluationUnhooked) }
    }
}
