import Foundation

/// mitmsim's stand-in for `SecTrustRef`: a presented chain, the anchors to judge it by, a time and a policy.
///
/// It starts with the device trust store as anchors. `setAnchorCertificates(_:)` replaces them, exactly
/// as `SecTrustSetAnchorCertificates` does: from then on only those anchors count, and any of them may
/// end a chain (a pinned leaf or intermediate, not only a self-signed root).
public struct ServerTrust: Sendable {
    /// What the chain is checked for: SecPolicyCreateSSL(server, host) or SecPolicyCreateBasicX509().
    public enum Policy: Hashable, Sendable {
        /// A TLS server certificate; the host name is checked unless `host` is nil. An empty host is a host
        /// no certificate names, so it always fails the check.
        case ssl(host: String?)
        /// Signatures, dates and CA constraints only: no host name and no key-usage purpose.
        case basicX509
    }

    /// The certificates the server presented, leaf first.
    public let certificates: [Certificate]
    public private(set) var anchorCertificates: [Certificate]
    /// True once `setAnchorCertificates(_:)` was called: anchors-only, partial chains allowed.
    public private(set) var hasCustomAnchors = false
    public var policy: Policy
    public var verifyDate: Date

    /// - Parameter certificates: as presented, leaf first; must not be empty.
    /// - Parameter anchors: the device trust store.
    public init(certificates: [Certificate], anchors: [Certificate], policy: Policy = .basicX509, verifyDate: Date) {
        precondition(!certificates.isEmpty, "a server trust needs at least the leaf certificate")
        self.certificates = certificates
        self.anchorCertificates = anchors
        self.policy = policy
        self.verifyDate = verifyDate
    }

    /// The leaf: the certificate that identifies the server.
    public var leaf: Certificate { certificates[0] }

    /// Replaces the anchors; from now on only these are trusted and any of them may end a chain.
    public mutating func setAnchorCertificates(_ anchors: [Certificate]) {
        anchorCertificates = anchors
        hasCustomAnchors = true
    }

    /// Builds and checks a path from the leaf to an anchor at `verifyDate` under `policy`.
    public func evaluate() -> TrustResult {
        ChainVerifier(trust: self).verify()
    }
}
