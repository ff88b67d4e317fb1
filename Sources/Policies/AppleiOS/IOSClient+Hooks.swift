extension IOSClient: HookableClient {
    /// objection's hooks on the iOS client: AFSecurityPolicy's setters patch the policy the handler asks, and the
    /// challenge hook replaces the handler's answer. ATS and the system's evaluation are not the app's code, and no
    /// hook here reaches them.
    public func applying(_ hook: RuntimeHook) -> (client: any ClientModel, note: TraceStep?)? {
        let asksPolicy = !challengeHooked && (challengeHandler == .afnetworking || challengeHandler == .identityBlock)
        var client = self
        switch hook {
        case .setSSLPinningMode where asksPolicy:
            let asked = policy.SSLPinningMode
            client.policy.SSLPinningMode = .none
            let effect =
                asked == .none
                ? "the app asked for AFSSLPinningModeNone already, so nothing changes"
                : "the app asked for \(Self.modeName(asked)), so the policy holds its pins but never compares them"
            return (client, TraceStep(hook.check, .note, "hooked: \(hook.target) → AFSSLPinningModeNone: \(effect)"))
        case .setAllowInvalidCertificates where asksPolicy:
            let effect =
                policy.allowInvalidCertificates
                ? "the app set YES itself, so nothing changes"
                : "the app's call with NO is rewritten to YES, so the policy no longer needs the device to trust the chain"
            client.policy.allowInvalidCertificates = true
            return (client, TraceStep(hook.check, .note, "hooked: \(hook.target) → YES: \(effect)"))
        case .urlSessionChallenge where challengeHandler != .systemDefault:
            client.challengeHooked = true
            return (client, nil)
        case .secTrustEvaluate:
            client.secTrustEvaluateHooked = true
            client.policy.secTrustEvaluateHooked = asksPolicy
            return (client, asksPolicy ? nil : TraceStep(hook.check, .skipped, "hooked: \(hook.target), but \(evaluatesNothing)"))
        default:
            return nil
        }
    }

    /// Why the `secTrustEvaluate` hook finds no evaluation in the app's code to change.
    private var evaluatesNothing: String {
        if challengeHooked { return "the hooked challenge method answers before the app's handler evaluates anything, so the hook changes nothing" }
        if challengeHandler == .acceptAll { return "the app's challenge block evaluates nothing, so the hook changes nothing" }
        return "the app has no challenge delegate method and makes no evaluation of its own: URLSession's default handling evaluates, "
            + "and mitmsim applies the hook to the app's own calls only (whether the system's evaluation goes through the patched "
            + "function is not documented)"
    }

    /// "AFSSLPinningModeCertificate".
    static func modeName(_ mode: SSLPinningMode) -> String {
        "AFSSLPinningMode" + mode.rawValue.prefix(1).uppercased() + mode.rawValue.dropFirst()
    }

    /// The hooked challenge: the handler's own answer never runs; UseCredential goes back for any chain.
    func hookedAnswer() -> [TraceStep] {
        let bypassed: String =
            switch challengeHandler {
            case .acceptAll: "the app's block, which answered UseCredential too, is replaced by the same answer"
            case .afnetworking, .identityBlock: "AFSecurityPolicy is never asked"
            case .systemDefault: "the system is never asked"
            }
        return [
            TraceStep(
                .urlSessionChallengeHook, .passed,
                "hooked: \(RuntimeHook.urlSessionChallenge.target) → the completion handler gets UseCredential with credentialForTrust: "
                    + "for any chain: \(bypassed)"),
            TraceStep(.challengeDisposition, .note, "UseCredential with credentialForTrust:, from the hook"),
        ]
    }
}
