/// objection's AFNetworking hooks (`ios sslpinning disable`), which rewrite the arguments of AFSecurityPolicy's setters.
extension RuntimeHook {
    /// `-[AFSecurityPolicy setSSLPinningMode:]` (and `+policyWithPinningMode:`, which calls it): any mode becomes
    /// AFSSLPinningModeNone.
    public static let setSSLPinningMode = Self("setSSLPinningMode", target: "-[AFSecurityPolicy setSSLPinningMode:]", check: .setSSLPinningModeHook)
    /// `-[AFSecurityPolicy setAllowInvalidCertificates:]`: a call with NO becomes YES.
    public static let setAllowInvalidCertificates = Self(
        "setAllowInvalidCertificates", target: "-[AFSecurityPolicy setAllowInvalidCertificates:]", check: .setAllowInvalidCertificatesHook)
}

extension TraceStep.Check {
    /// The attacker's hook on `setSSLPinningMode:`: the policy's pinning mode, rewritten to none.
    public static let setSSLPinningModeHook = Self(rawValue: "setSSLPinningModeHook")
    /// The attacker's hook on `setAllowInvalidCertificates:`: the app's NO, rewritten to YES.
    public static let setAllowInvalidCertificatesHook = Self(rawValue: "setAllowInvalidCertificatesHook")
}
