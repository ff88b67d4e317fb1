import Foundation

/// The checks Apple's trust daemon adds to a path beyond RFC 5280, by the source of the path's anchor.
///
/// From Apple's published Security source (`SecPolicyServer.c`: `SecPolicyCheckWeakKeySize`,
/// `SecPolicyCheckWeakSignature`, `SecPolicyCheckKeySize`, `SecPolicyCheckSignatureHashAlgorithms`,
/// `SecPolicyCheckValidityPeriodMaximums` up to Security-60158.100, `SecPolicyCheckSystemTrustValidityPeriod`
/// and `SecPolicyCheckOtherTrustValidityPeriod` with `SecPolicy.c`'s `set_ssl_validity_periods` since,
/// `SecPolicyCheckServerAuthEKU`) and the support note "Requirements for trusted certificates in iOS 13 and
/// macOS 10.15". Every policy rejects keys below RSA 1024 / EC 160 and MD2/MD4/MD5 signatures; the SSL
/// server policy on iOS 13 and later adds the rest.
struct AppleTLSRules {
    let trust: ServerTrust

    /// Apple's own instants (CFAbsoluteTime constants in the source), as Unix times.
    static let july2016 = Date(timeIntervalSince1970: 1_467_331_200)
    static let march2018 = Date(timeIntervalSince1970: 1_519_862_400)
    /// The source says "1 July 2019 00:00:00 UTC" and holds the instant an hour before it. The serverAuth
    /// rule, and iOS 13's validity rule, count a leaf as issued after it when its notBefore is strictly later;
    /// iOS 16's validity rule (`check_validity_period_maximums`) from that instant on.
    static let july2019 = Date(timeIntervalSince1970: 1_561_935_600)
    static let september2020 = Date(timeIntervalSince1970: 1_598_918_400)

    /// The failures these rules find on `path` (leaf first; its last certificate is the root they ask about).
    func failures(path: [Certificate]) -> [TrustFailure] {
        guard let leaf = path.first, let root = path.last else { return [] }
        var failures: [TrustFailure] = []
        // The peer platforms keep OpenSSL's indifference to a key's algorithm (DSA); their models take only the sizes.
        let weakKeys = path.filter { certificate in
            let algorithm = certificate.keyStrength.algorithm
            if algorithm == .edDSA { return trust.platform.countsEdDSAKeysWeak }
            return !certificate.keyIsAtLeast(rsa: 1024, ec: 160) && (trust.platform.isApple || algorithm != .other)
        }
        failures += weakKeys.map { TrustFailure(kind: .weakKey(forTLS: false), certificate: $0) }
        let rootSource = trust.source(ofAnchor: root)
        // Self-signed certificates are never checked for their hash; a user-installed anchor is not either.
        let weakHashes = path.enumerated().compactMap { index, certificate -> (Certificate, String)? in
            guard let digest = certificate.weakSignatureDigest, !(index == path.count - 1 && rootSource == .userInstalled),
                !certificate.isSelfSigned
            else { return nil }
            return (certificate, digest)
        }
        for (certificate, digest) in weakHashes where digest != "SHA-1" {
            failures.append(TrustFailure(kind: .weakSignatureDigest(digest: digest), certificate: certificate))
        }
        if trust.platform.isApple { failures += structureFailures(path: path) }
        guard case .ssl = trust.policy, trust.platform.hasTLSCertificateRules else { return failures }

        let leafIsUserAnchor = trust.deviceTrustStore.userInstalled.contains(leaf)
        // The SSL policy's key-size rule (`SecPolicyAddStrongKeySizeOptions`) gives sizes for RSA and EC only: an EdDSA key fails it.
        for certificate in path where !leafIsUserAnchor && !weakKeys.contains(certificate) {
            if certificate.keyStrength.algorithm == .edDSA || !certificate.keyIsAtLeast(rsa: 2048, ec: 256) {
                failures.append(TrustFailure(kind: .weakKey(forTLS: true), certificate: certificate))
            }
        }
        for (certificate, digest) in weakHashes where digest == "SHA-1" {
            failures.append(TrustFailure(kind: .weakSignatureDigest(digest: digest), certificate: certificate))
        }
        if let maximum = maximumValidity(leaf: leaf, rootSource: rootSource, leafIsUserAnchor: leafIsUserAnchor),
            leaf.notAfter.timeIntervalSince(leaf.notBefore) > maximum.seconds
        {
            failures.append(TrustFailure(kind: .validityPeriodTooLong(maximumDays: maximum.days, anchor: rootSource), certificate: leaf))
        }
        let needsServerAuth = rootSource == .system || (rootSource != .userInstalled && leaf.notBefore > Self.july2019)
        if needsServerAuth, !leaf.listsServerAuthentication {
            failures.append(TrustFailure(kind: .missingServerAuthEKU(anchor: rootSource), certificate: leaf))
        }
        return failures
    }

    /// Apple's checks of each certificate's structure under every policy (`SecPolicyAddBasicCertOptions`, `SecPolicy.c`): no
    /// empty subject but on a leaf with a critical subjectAltName; from iOS 13 on, no extension of a known type that cannot
    /// be parsed, and basicConstraints on every certificate above the leaf, the anchor included, as `SecPVCParentCertificateChecks`
    /// asks of a version 3 certificate (OpenSSL already asks it of the intermediates).
    private func structureFailures(path: [Certificate]) -> [TrustFailure] {
        var failures: [TrustFailure] = []
        for (index, certificate) in path.enumerated() {
            if certificate.hasRefusedEmptySubject { failures.append(TrustFailure(kind: .emptySubject, certificate: certificate)) }
            guard trust.platform.checksCertificateStructure else { continue }
            if certificate.hasUnparseableKnownExtension { failures.append(TrustFailure(kind: .invalidExtension, certificate: certificate)) }
            if index > 0, certificate.isVersion3WithoutBasicConstraints { failures.append(TrustFailure(kind: .issuerNotCA, certificate: certificate)) }
        }
        return failures
    }

    /// The longest validity the leaf may have, or nil when no maximum applies to it.
    private func maximumValidity(leaf: Certificate, rootSource: AnchorSource?, leafIsUserAnchor: Bool) -> (days: Int, seconds: TimeInterval)? {
        let day: TimeInterval = 86_400
        let slip: TimeInterval = 3_600
        let today = trust.platform == .iOS16
        guard rootSource == .system else {
            // iOS 16's rule takes effect at its date (`>=`); iOS 13's counted only leaves issued after it.
            let covered = today ? leaf.notBefore >= Self.july2019 : leaf.notBefore > Self.july2019
            if leafIsUserAnchor || !covered { return nil }
            return (825, 825 * day + slip)
        }
        switch leaf.notBefore {
        case ..<Self.july2016: return today ? nil : (365 * 5 + 2, (365 * 5 + 2) * day + slip)
        case ..<Self.march2018: return today ? nil : (365 * 3 + 2 * 31 + 30 + 1, (365 * 3 + 2 * 31 + 30 + 1) * day + slip)
        case ..<Self.september2020: return (825, 825 * day + slip)
        default: return (398, 398 * day)
        }
    }
}
