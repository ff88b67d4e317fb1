/// AFNetworking's checks: the branches of `-[AFSecurityPolicy evaluateServerTrust:forDomain:]`, 4.x's and the 2.x
/// releases' that 4.x has no counterpart for.
extension TraceStep.Check {
    /// Step 1: allowInvalidCertificates + validatesDomainName + a domain, but nothing pinned → NO.
    public static let domainGuard = Self(rawValue: "domainGuard")
    /// Step 2: SecPolicyCreateSSL(true, domain) or SecPolicyCreateBasicX509().
    public static let policySelection = Self(rawValue: "policySelection")
    /// Steps 3–4: the chain evaluated against the device trust store.
    public static let chainTrust = Self(rawValue: "chainTrust")
    /// Steps 3–4: allowInvalidCertificates = YES skips that evaluation.
    public static let allowInvalidOverride = Self(rawValue: "allowInvalidOverride")
    /// Step 5a–b: certificate mode makes the pinned certificates the only anchors and re-evaluates.
    public static let pinnedAnchors = Self(rawValue: "pinnedAnchors")
    /// Step 5d: some certificate of the path is byte-equal to a pinned one.
    public static let pinnedCertificateMatch = Self(rawValue: "pinnedCertificateMatch")
    /// Step 5, public-key mode: some key of the path equals a pinned certificate's key.
    public static let pinnedPublicKeyMatch = Self(rawValue: "pinnedPublicKeyMatch")
    /// AFNetworking 2.5.1, mode none: YES without evaluating anything.
    public static let modeNoneWithoutEvaluation = Self(rawValue: "modeNoneWithoutEvaluation")
    /// 2.1–2.5.3, certificate mode with validatesCertificateChain YES: every certificate of the path is pinned.
    public static let everyCertificatePinned = Self(rawValue: "everyCertificatePinned")
    /// 2.1–2.5.3, public-key mode with validatesCertificateChain YES: as many key matches as certificates in the path.
    public static let everyPublicKeyPinned = Self(rawValue: "everyPublicKeyPinned")
    /// 2.1.0 and 2.2.0: the leaf's subject summary (its common name) compared with the domain, wildcards per label.
    public static let commonNameMatch = Self(rawValue: "commonNameMatch")

    /// Every check above, as the registry of client libraries lists them.
    public static let afNetworkingChecks: [Self] = [
        .domainGuard, .policySelection, .chainTrust, .allowInvalidOverride, .pinnedAnchors, .pinnedCertificateMatch, .pinnedPublicKeyMatch,
        .modeNoneWithoutEvaluation, .everyCertificatePinned, .everyPublicKeyPinned, .commonNameMatch,
    ]
}
