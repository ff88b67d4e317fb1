/// objection's URLSession hook (`ios sslpinning disable`).
extension RuntimeHook {
    /// Every implementation of `URLSession:didReceiveChallenge:completionHandler:` in the app (AFNetworking's
    /// `AFURLSessionManager` and an app's own delegate included): the completion handler is called with
    /// UseCredential and `credentialForTrust:`, whatever the method would have answered.
    public static let urlSessionChallenge = Self(
        "urlSessionChallenge", target: "-[* URLSession:didReceiveChallenge:completionHandler:]", check: .urlSessionChallengeHook)
}

extension TraceStep.Check {
    /// The attacker's hook on the app's challenge delegate method: UseCredential for any chain.
    public static let urlSessionChallengeHook = Self(rawValue: "urlSessionChallengeHook")
}
