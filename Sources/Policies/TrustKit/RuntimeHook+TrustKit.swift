import PKI

/// objection's TrustKit hook (`ios sslpinning disable`).
extension RuntimeHook {
    /// `-[TSKPinningValidator evaluateTrust:forHostname:]`: any result other than 0 is replaced by 0,
    /// TSKTrustDecisionShouldAllowConnection.
    public static let trustKitValidator = Self(
        "trustKitValidator", target: "-[TSKPinningValidator evaluateTrust:forHostname:]", check: .trustKitValidatorHook)
}

extension TraceStep.Check {
    /// The attacker's hook on TrustKit's validator: every decision becomes ShouldAllowConnection.
    public static let trustKitValidatorHook = Self(rawValue: "trustKitValidatorHook")
}

extension TrustKitClient: HookableClient {
    /// The validator hook acts when `evaluateTrust:forHostname:` returns, the `secTrustEvaluate` hook in
    /// `verifyPublicKeyPin`'s evaluation: the trace shows each where it acts.
    public func applying(_ hook: RuntimeHook) -> (client: any ClientModel, note: TraceStep?)? {
        setting(\.validatorHooked, when: hook, is: .trustKitValidator) ?? setting(\.secTrustEvaluateHooked, when: hook, is: .secTrustEvaluate)
    }

    /// The hooked validator's answer in place of `decision`: the steps that led to it stay, as a note when one
    /// failed (TrustKit did evaluate; the hook only replaces what it returns), then the connection is allowed.
    func hookedDecision(_ decision: String, trace: inout Trace, path: [Certificate]) -> PolicyEvaluation {
        if let last = trace.steps.last, last.outcome == .failed {
            trace.steps[trace.steps.count - 1] = TraceStep(last.check, .note, last.detail + " (that is what the hook replaces)")
        }
        trace.add(
            .trustKitValidatorHook, .passed,
            "hooked: \(RuntimeHook.trustKitValidator.target) returned \(decision), and the hook replaces it with 0, "
                + "TSKTrustDecisionShouldAllowConnection")
        return allow(trace: &trace, path: path)
    }
}
