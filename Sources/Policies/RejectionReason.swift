import PKI

/// Why a policy said NO, as one value (the trace says it in words).
public enum RejectionReason: Hashable, Sendable {
    /// Step 1: AFNetworking refuses allowInvalidCertificates + validatesDomainName without pins.
    case contradictorySettings
    /// The device trust store (step 3–4) or the pinned anchors (step 5b) did not validate the chain.
    case untrustedChain(TrustFailure)
    /// Certificate mode: no certificate of the path is pinned.
    case pinnedCertificateNotInPath
    /// Public-key mode: no key of the path is pinned.
    case pinnedPublicKeyNotInPath

    /// A stable identifier for JSON: the trust failure's code for untrusted chains.
    public var code: String {
        switch self {
        case .contradictorySettings: "contradictorySettings"
        case .untrustedChain(let failure): failure.kind.code
        case .pinnedCertificateNotInPath: "pinnedCertificateNotInPath"
        case .pinnedPublicKeyNotInPath: "pinnedPublicKeyNotInPath"
        }
    }
}
