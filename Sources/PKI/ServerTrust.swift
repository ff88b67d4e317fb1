import Foundation

/// mitmsim's stand-in for `SecTrustRef`: a presented chain, the anchors to judge it by, a time, a policy and
/// the iOS release whose rules apply.
///
/// It starts with the device trust store's anchors (system roots and fully trusted user-installed roots). `setAnchorCertificates(_:)` replaces them, exactly
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
    /// The device's trust settings; they still decide which rules apply after the app sets its own anchors.
    public let deviceTrustStore: DeviceTrustStore
    public var policy: Policy
    public var verifyDate: Date
    public var platform: Platform
    /// The `NSPinnedDomains` pins of the app whose process evaluates, as `SecPolicyCreateSSL` looks them up for a host
    /// name (`SSLPins`): every SSL policy with a host name carries them. Nil for any process but an iOS app's.
    public var pinsForHost: (@Sendable (String) -> SSLPins?)?

    /// - Parameter certificates: as presented, leaf first; must not be empty.
    public init(
        certificates: [Certificate], deviceTrustStore: DeviceTrustStore, policy: Policy = .basicX509, verifyDate: Date, platform: Platform = .iOS16
    ) {
        precondition(!certificates.isEmpty, "a server trust needs at least the leaf certificate")
        self.certificates = certificates
        self.deviceTrustStore = deviceTrustStore
        self.anchorCertificates = deviceTrustStore.anchors
        self.policy = policy
        self.verifyDate = verifyDate
        self.platform = platform
    }

    /// The leaf: the certificate that identifies the server.
    public var leaf: Certificate { certificates[0] }

    /// Replaces the anchors; from now on only these are trusted and any of them may end a chain.
    public mutating func setAnchorCertificates(_ anchors: [Certificate]) {
        anchorCertificates = anchors
        hasCustomAnchors = true
    }

    /// Builds and checks a path from the leaf to an anchor at `verifyDate` under `policy` and `platform`'s rules.
    ///
    /// On iOS, a path that fails is not the last word: as Apple's path builder rejects a path and goes on to the next
    /// (`SecPathBuilderReject`, `SecPathBuilderGetNext` in `trust/trustd/SecTrustServer.c`), every other path to an anchor
    /// is verified in turn and the first valid one wins; when none is, the first path's failures are reported.
    public func evaluate() -> TrustResult {
        let first = ChainVerifier(trust: self).verify()
        guard !first.isValid, platform.isApple else { return first }
        for path in anchoredPaths() where path != first.path {
            let alternate = ChainVerifier(trust: self, candidate: path).verify()
            if alternate.isValid { return alternate }
        }
        return first
    }

    /// Where `certificate` is trusted from when it ends a path, as Apple's trust daemon asks it: a system
    /// root counts as one even when the app pinned it; nil when it is no anchor at all.
    public func source(ofAnchor certificate: Certificate) -> AnchorSource? {
        if deviceTrustStore.system.contains(certificate) { return .system }
        if deviceTrustStore.userInstalled.contains(certificate) { return .userInstalled }
        return hasCustomAnchors && anchorCertificates.contains(certificate) ? .app : nil
    }
}
