/// TrustKit's checks (`TSKPinningValidator`, `verifyPublicKeyPin`), in the order it decides.
extension TraceStep.Check {
    /// The host's `TSKPinnedDomains` entry: its own, or the longest parent with TSKIncludeSubdomains; none means not pinned.
    public static let trustKitPolicyLookup = Self(rawValue: "trustKitPolicyLookup")
    /// `TSKExpirationDate`: an expired policy leaves the domain not pinned.
    public static let trustKitPolicyExpiration = Self(rawValue: "trustKitPolicyExpiration")
    /// Domain not pinned: PerformDefaultHandling, the system's own evaluation decides.
    public static let trustKitDefaultHandling = Self(rawValue: "trustKitDefaultHandling")
    /// SecPolicyCreateSSL(YES, host) forced and the chain evaluated: an invalid chain is blocked even in report-only.
    public static let trustKitChainValidation = Self(rawValue: "trustKitChainValidation")
    /// The evaluated path walked from the root to the leaf for a key whose SPKI hash is pinned.
    public static let trustKitPinMatch = Self(rawValue: "trustKitPinMatch")
    /// TSKEnforcePinning NO: no pin matched, and the connection is allowed and reported.
    public static let trustKitReportOnly = Self(rawValue: "trustKitReportOnly")

    /// Every check above, as the registry of client libraries lists them.
    public static let trustKitChecks: [Self] = [
        .trustKitPolicyLookup, .trustKitPolicyExpiration, .trustKitDefaultHandling, .trustKitChainValidation, .trustKitPinMatch, .trustKitReportOnly,
    ]
}
