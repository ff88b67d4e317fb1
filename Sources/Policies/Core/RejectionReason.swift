import PKI

/// Why a policy said NO, as one value (the trace says it in words). Open, as the libraries are: each declares
/// its own reasons in its folder (`extension RejectionReason { public static let … }`, `RejectionReason+OkHttp.swift`);
/// the reasons several libraries share are below.
public struct RejectionReason: Hashable, Sendable {
    /// A stable identifier for JSON: the trust failure's code for untrusted chains (ATS's own code when ATS refused one).
    public let code: String
    /// The chain's failure when the reason is an untrusted chain; two reasons with one code differ by it.
    public let trustFailure: TrustFailure?

    public init(code: String, trustFailure: TrustFailure? = nil) {
        self.code = code
        self.trustFailure = trustFailure
    }
}

extension RejectionReason {
    /// The device trust store (step 3–4) or the pinned anchors (step 5b) did not validate the chain.
    public static func untrustedChain(_ failure: TrustFailure) -> Self { Self(code: failure.kind.code, trustFailure: failure) }
    /// Certificate mode: no certificate of the path is pinned.
    public static let pinnedCertificateNotInPath = Self(code: "pinnedCertificateNotInPath")
    /// Public-key mode: no key of the path is pinned.
    public static let pinnedPublicKeyNotInPath = Self(code: "pinnedPublicKeyNotInPath")
    /// A peer library or platform refused the TLS version the handshake settled on (`TLSVersionFloor`).
    public static let tlsVersionRefused = Self(code: "tlsVersionRefused")
}
