import PKI

/// Alamofire 4's `ServerTrustPolicy`, one case per way it judges a host, with Alamofire's labels.
///
/// `.customEvaluation(closure)` is left out: a closure is the app's own code, which no scenario can write.
/// The decision each case makes is in `Alamofire4Client+Evaluate.swift`.
public enum ServerTrustPolicy: Hashable, Sendable, CustomStringConvertible {
    /// `.performDefaultEvaluation(validateHost:)`: one evaluation with `SecPolicyCreateSSL(true, host or nil)`.
    case performDefaultEvaluation(validateHost: Bool)
    /// `.performRevokedEvaluation(validateHost:revocationFlags:)`: the same evaluation with a revocation policy
    /// added (no CRL or OCSP responder is reachable in the simulation: status is unknown).
    case performRevokedEvaluation(validateHost: Bool, revocationFlags: RevocationOptions)
    /// `.pinCertificates(certificates:validateCertificateChain:validateHost:)`: with chain validation, the pinned
    /// certificates become the only anchors and nothing is compared; without it, a byte match and no evaluation.
    case pinCertificates(certificates: [Certificate], validateCertificateChain: Bool, validateHost: Bool)
    /// `.pinPublicKeys(publicKeys:validateCertificateChain:validateHost:)`: an optional evaluation against the
    /// device's anchors, then some key of the chain must be pinned. Each certificate stands for its public key.
    case pinPublicKeys(publicKeys: [Certificate], validateCertificateChain: Bool, validateHost: Bool)
    /// `.disableEvaluation`: accepts every chain.
    case disableEvaluation

    /// The policy as Alamofire 4 code would write it, certificates by label.
    public var description: String {
        switch self {
        case .performDefaultEvaluation(let validateHost):
            ".performDefaultEvaluation(validateHost: \(validateHost))"
        case .performRevokedEvaluation(let validateHost, let flags):
            ".performRevokedEvaluation(validateHost: \(validateHost), revocationFlags: \(flags))"
        case .pinCertificates(let certificates, let validateChain, let validateHost):
            ".pinCertificates(certificates: [\(SecurityPolicy.names(certificates))], validateCertificateChain: \(validateChain), validateHost: \(validateHost))"
        case .pinPublicKeys(let keys, let validateChain, let validateHost):
            ".pinPublicKeys(publicKeys: [\(keys.map { "key of '\($0.label)'" }.joined(separator: ", "))], "
                + "validateCertificateChain: \(validateChain), validateHost: \(validateHost))"
        case .disableEvaluation:
            ".disableEvaluation"
        }
    }
}
