import Foundation

/// The keys an SSL server policy for one host requires because the app's Info.plist pins them (`NSPinnedDomains`,
/// iOS 14+): SHA-256 digests of DER SubjectPublicKeyInfo.
///
/// `SecPolicyCreateSSL(true, host)` adds them itself (`SecPolicyAddATSpinningIfInfoSpecified`, OSX/sec/Security/SecPolicy.c,
/// Security-61901), from the main bundle of the process that creates the policy, as the options
/// `kSecPolicyCheckLeafSPKISHA256` and `kSecPolicyCheckCAspkiSHA256`, and trustd checks them with the policy's other
/// checks (trust/trustd/SecPolicyServer.c). So every evaluation with an SSL policy for the host meets them, whoever
/// asks for it: URLSession's default handling, ATS, or the app's own code. An SSL policy without a host name, and
/// BasicX509, carry none.
public struct SSLPins: Sendable, Hashable {
    /// `NSPinnedLeafIdentities`: the leaf's digest must be one of these; nil when no entry covering the host has the list.
    public var leaf: Set<Data>?
    /// `NSPinnedCAIdentities`: some certificate of the path above the leaf, the anchor included, must have one of these;
    /// nil when no entry covering the host has the list.
    public var authorities: Set<Data>?

    public init(leaf: Set<Data>?, authorities: Set<Data>?) {
        self.leaf = leaf
        self.authorities = authorities
    }

    /// Whether the leaf of `path` has a pinned leaf key (`SecPolicyCheckLeafSPKISHA256`); true when no leaf list applies.
    public func leafMatches(path: [Certificate]) -> Bool {
        guard let leaf else { return true }
        return path.first.map { leaf.contains(Self.digest(of: $0)) } ?? false
    }

    /// The first certificate above the leaf with a pinned CA key (`SecPolicyCheckCAspkiSHA256`, which fails a path of
    /// the leaf alone); nil when none has one or no CA list applies.
    public func pinnedAuthority(in path: [Certificate]) -> Certificate? {
        guard let authorities else { return nil }
        return path.dropFirst().first { authorities.contains(Self.digest(of: $0)) }
    }

    /// The failures these checks add to an evaluation of `path` with the SSL policy for `host`; none when both hold.
    public func failures(path: [Certificate], host: String) -> [TrustFailure] {
        guard let leaf = path.first else { return [] }
        var failures: [TrustFailure] = []
        if !leafMatches(path: path) { failures.append(TrustFailure(kind: .pinnedIdentityMismatch(host: host, list: .leaf), certificate: leaf)) }
        if authorities != nil, pinnedAuthority(in: path) == nil {
            failures.append(TrustFailure(kind: .pinnedIdentityMismatch(host: host, list: .authorities), certificate: leaf))
        }
        return failures
    }

    private static func digest(of certificate: Certificate) -> Data { Data(OpenSSL.sha256(certificate.publicKeyInfo)) }

    /// Which of the two lists a pin failure is about.
    public enum List: Hashable, Sendable {
        /// `NSPinnedLeafIdentities`.
        case leaf
        /// `NSPinnedCAIdentities`.
        case authorities
    }
}
