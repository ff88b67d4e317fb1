import Foundation

/// Why a chain did not validate, attached to the certificate it concerns.
///
/// Every error OpenSSL's verifier reports for a chain has a kind of its own, named as a learner would
/// (and SecTrust would) name the problem; `other` is the fallback for an error with no lesson, and its
/// sentence carries OpenSSL's own text. The rules Apple adds (`AppleTLSRules`) have kinds of their own.
public struct TrustFailure: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case untrustedRoot
        case missingIssuer
        case expired
        case notYetValid
        case unreadableValidity
        /// The leaf does not name `host`; `commonNameReader` is the platform whose host check read the common name
        /// where the SAN has no DNS name (iOS 12, OpenSSL), nil where none does.
        case hostnameMismatch(host: String, commonNameReader: Platform? = nil)
        case issuerNotCA
        case keyUsageForbidsCertificateSigning
        case badSignature
        case unsupportedSignatureAlgorithm
        case inconsistentSignatureAlgorithm
        /// A key below RSA 1024 / EC 160 bits (any policy), or with `forTLS` below RSA 2048 / EC 256 (iOS 13 TLS).
        case weakKey(forTLS: Bool)
        /// "SHA-1" (iOS 13 TLS), "MD5" (any policy).
        case weakSignatureDigest(digest: String)
        /// The leaf is valid longer than Apple allows for a chain ending at `anchor` (nil: at no trusted anchor).
        case validityPeriodTooLong(maximumDays: Int, anchor: AnchorSource?)
        case missingServerAuthEKU(anchor: AnchorSource?)
        /// The path stops at a certificate the user installed without switching on full trust.
        case installedWithoutFullTrust
        case wrongExtendedKeyUsage
        case pathLengthExceeded
        case pathTooLong
        case pathLoop
        case nameConstraintViolation
        case unsupportedNameConstraint
        case policyViolation
        case unsupportedCriticalExtension
        case invalidExtension
        /// An empty subject where Apple refuses one: on a CA, or on a leaf whose subjectAltName is not marked critical.
        case emptySubject
        /// The SSL policy for `host` carries the app's `NSPinnedDomains` pins (`SSLPins`), and `list`'s check failed: the
        /// leaf has no pinned leaf key, or no certificate above it a pinned CA key. The failure names the leaf.
        case pinnedIdentityMismatch(host: String, list: SSLPins.List)
        /// A leaf at a root built into iOS, issued on or after 16 October 2018, without the SCTs Apple's CT policy requires
        /// (`counted` of `required`): trustd's `kSecPolicyCheckSystemTrustedCTRequired`.
        case certificateTransparencyRequired(required: Int, counted: Int)
        case other(code: Int32, message: String)

        /// A stable identifier for JSON and tests.
        public var code: String {
            switch self {
            case .untrustedRoot: "untrustedRoot"
            case .missingIssuer: "missingIssuer"
            case .expired: "expired"
            case .notYetValid: "notYetValid"
            case .unreadableValidity: "unreadableValidity"
            case .hostnameMismatch: "hostnameMismatch"
            case .issuerNotCA: "issuerNotCA"
            case .keyUsageForbidsCertificateSigning: "keyUsageForbidsCertificateSigning"
            case .badSignature: "badSignature"
            case .unsupportedSignatureAlgorithm: "unsupportedSignatureAlgorithm"
            case .inconsistentSignatureAlgorithm: "inconsistentSignatureAlgorithm"
            case .weakKey: "weakKey"
            case .weakSignatureDigest: "weakSignatureDigest"
            case .wrongExtendedKeyUsage: "wrongExtendedKeyUsage"
            case .pathLengthExceeded: "pathLengthExceeded"
            case .pathTooLong: "pathTooLong"
            case .pathLoop: "pathLoop"
            case .nameConstraintViolation: "nameConstraintViolation"
            case .unsupportedNameConstraint: "unsupportedNameConstraint"
            case .policyViolation: "policyViolation"
            case .unsupportedCriticalExtension: "unsupportedCriticalExtension"
            case .invalidExtension: "invalidExtension"
            case .emptySubject: "emptySubject"
            case .pinnedIdentityMismatch: "pinnedIdentityMismatch"
            case .validityPeriodTooLong: "validityPeriodTooLong"
            case .missingServerAuthEKU: "missingServerAuthEKU"
            case .installedWithoutFullTrust: "installedWithoutFullTrust"
            case .certificateTransparencyRequired: "certificateTransparencyRequired"
            case .other: "otherVerificationError"
            }
        }
    }

    public let kind: Kind
    public let certificate: Certificate
    /// The `X509_V_ERR_*` code OpenSSL reported, or nil for a failure made by hand; not part of equality.
    public let openSSLCode: Int32?

    public init(kind: Kind, certificate: Certificate, openSSLCode: Int32? = nil) {
        self.kind = kind
        self.certificate = certificate
        self.openSSLCode = openSSLCode
    }

    public static func == (lhs: TrustFailure, rhs: TrustFailure) -> Bool { lhs.kind == rhs.kind && lhs.certificate == rhs.certificate }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(certificate)
    }

    /// One sentence naming the certificate by label; deterministic (dates, never times or serials).
    public var description: String {
        let name = "'\(certificate.label)'"
        switch kind {
        case .untrustedRoot:
            return "\(name) is self-signed and is not among the trust anchors"
        case .missingIssuer:
            return "the issuer of \(name) (\(certificate.issuer)) is neither in the presented chain nor among the trust anchors"
        case .expired:
            return "\(name) expired on \(certificate.notAfter.utcDay)"
        case .notYetValid:
            return "\(name) is not valid before \(certificate.notBefore.utcDay)"
        case .unreadableValidity:
            return "\(name) has a validity date that cannot be read"
        case .hostnameMismatch(let host, let reader):
            return "\(name) \(Self.hostMismatch(certificate, host: host, reader: reader?.commonNameReader))"
        case .issuerNotCA:
            return "\(name) signed a certificate but is not a certificate authority (no basicConstraints CA:TRUE)"
        case .keyUsageForbidsCertificateSigning:
            return "\(name) signed a certificate but its keyUsage does not allow signing certificates (no keyCertSign)"
        case .badSignature:
            return "the signature on \(name) does not verify with its issuer's public key"
        case .unsupportedSignatureAlgorithm:
            return "the signature on \(name) cannot be checked: its algorithm is not supported or does not fit its issuer's key"
        case .inconsistentSignatureAlgorithm:
            return "\(name) names one signature algorithm in its signed part and a different one outside it"
        case .weakKey(let forTLS) where certificate.keyStrength.algorithm == .edDSA:
            return forTLS
                ? "\(name) has an EdDSA key (\(certificate.keyDescription)); iOS 13 and later accept only RSA (2048 bits or more) and EC "
                    + "(256 bits or more) keys in a TLS chain"
                : "\(name) has an EdDSA key (\(certificate.keyDescription)), which iOS before 17 counts as weak under every policy"
        case .weakKey where certificate.keyStrength.algorithm == .other:
            return "\(name) has a \(certificate.keyDescription) key; iOS trusts only RSA and EC keys (and EdDSA keys from iOS 17 on), under every policy"
        case .weakKey(let forTLS):
            return forTLS
                ? "\(name) has a key (\(certificate.keyDescription)) smaller than iOS 13 and later accept in a TLS chain (RSA 2048 or EC 256 bits)"
                : "\(name) has a key (\(certificate.keyDescription)) below RSA 1024 or EC 160 bits, which iOS never trusts"
        case .weakSignatureDigest(let digest):
            return digest == "SHA-1"
                ? "the signature on \(name) uses SHA-1, which iOS 13 and later do not accept in a TLS chain"
                : "the signature on \(name) uses \(digest), which iOS never accepts"
        case .validityPeriodTooLong(let maximum, let anchor):
            let days = Int((certificate.notAfter.timeIntervalSince(certificate.notBefore) / 86_400).rounded(.down))
            return "\(name) is valid for \(days) days (\(certificate.notBefore.utcDay) to \(certificate.notAfter.utcDay)); "
                + "\(Self.validityRelease(maximumDays: maximum, anchor: anchor)) allow at most \(maximum) days for a leaf "
                + Self.validityWindow(maximumDays: maximum, anchor: anchor)
        case .missingServerAuthEKU(let anchor):
            let which =
                anchor == .system
                ? "on every leaf whose chain ends at a root built into iOS"
                : "on a leaf issued after 1 July 2019 whose chain does not end at a root the user installed"
            return "\(name) has no extended key usage naming serverAuth; iOS 13 and later require one \(which)"
        case .installedWithoutFullTrust:
            return "\(name) was installed with a profile, but full trust for it is not switched on in Certificate Trust Settings, "
                + "so iOS does not let it anchor a TLS chain"
        case .wrongExtendedKeyUsage:
            return "\(name) is not allowed to identify a TLS server (key usage or extended key usage)"
        case .pathLengthExceeded:
            return "\(name) has more certificate authorities below it than its pathlen allows"
        case .pathTooLong:
            return "the path through \(name) has more certificates than the verifier allows"
        case .pathLoop:
            return "the path from \(name) leads back to a certificate already in it"
        case .nameConstraintViolation:
            return "\(name) has a name (in its subject or SAN) that the name constraints of a certificate authority above it do not allow"
        case .unsupportedNameConstraint:
            return "\(name) or a certificate authority above it has a name or name constraint of a form the verifier cannot check"
        case .policyViolation:
            return "the certificate policies on the path through \(name) are malformed or do not meet a policy constraint on the path"
        case .unsupportedCriticalExtension:
            return "\(name) has an extension marked critical that the verifier does not understand, so it may not be used"
        case .invalidExtension:
            return "\(name) has an extension that is malformed or contradicts another of its extensions"
        case .emptySubject:
            return certificate.isAuthority
                ? "\(name) is a certificate authority with an empty subject, which iOS never accepts"
                : "\(name) has an empty subject and its subjectAltName is not marked critical; iOS accepts an empty subject only on a leaf "
                    + "whose subjectAltName is critical"
        case .pinnedIdentityMismatch(let host, .leaf):
            return "the key of the leaf \(name) is not one NSPinnedLeafIdentities lists for '\(host)' (kSecPolicyCheckLeafSPKISHA256: "
                + "SecPolicyCreateSSL adds the Info.plist's NSPinnedDomains pins to the SSL policy for the host)"
        case .pinnedIdentityMismatch(let host, .authorities):
            return "no certificate above the leaf \(name) has a key NSPinnedCAIdentities lists for '\(host)' (kSecPolicyCheckCAspkiSHA256: "
                + "SecPolicyCreateSSL adds the Info.plist's NSPinnedDomains pins to the SSL policy for the host)"
        case .certificateTransparencyRequired(let required, let counted):
            return "\(name) is not CT-qualified: it has SCTs from \(counted) of the \(required) distinct logs the device knows that iOS 12.1.1 and "
                + "later require of a leaf issued after 15 October 2018 at a root built into iOS (Certificate Transparency validation required for this use)"
        case .other(let code, let message):
            return "\(name) failed a check mitmsim has no lesson for; OpenSSL says: \(message) (error \(code))"
        }
    }

    /// What the host check found: the names the leaf has and, where the platform reads it, its common name.
    /// `reader` names who reads the common name when the SAN has no DNS name ("iOS 12"); nil where nobody does.
    private static func hostMismatch(_ certificate: Certificate, host: String, reader: String?) -> String {
        let commonNameFallback = reader != nil
        // SAN DNS entries that are not host names are never compared from iOS 15 on, so they are named apart.
        let compared = HostNameMatcher.comparedDNSNames(certificate, commonNameFallback: commonNameFallback)
        let names = compared + certificate.ipAddresses
        let skipped = certificate.dnsNames.filter { !compared.contains($0) }
        let listed =
            names.isEmpty
            ? (skipped.isEmpty ? "has no names in its SAN" : "has no host names in its SAN") : "is issued for " + names.joined(separator: ", ")
        let ignored =
            skipped.isEmpty
            ? "" : "; its SAN entries " + skipped.map { "'\($0)'" }.joined(separator: ", ") + " are not host names, so they are never compared"
        guard let commonName = certificate.subject.commonName else { return "\(listed), not '\(host)'\(ignored)" }
        guard let reader else { return "\(listed), not '\(host)'\(ignored); its common name '\(commonName)' is never used" }
        guard compared.isEmpty else {
            return "\(listed), not '\(host)'; \(reader) reads the common name only when the SAN has no DNS name, so its common name "
                + "'\(commonName)' is not used"
        }
        let fallback = HostNameMatcher.commonNames(certificate)
        guard !fallback.isEmpty else {
            return "\(listed), not '\(host)'; its SAN has no DNS name, but its common name '\(commonName)' is not written as a host "
                + "name, so \(reader) does not compare it either"
        }
        let read = fallback.map { "'\($0)'" }.joined(separator: ", ")
        return "\(listed), not '\(host)'; its SAN has no DNS name, so \(reader) compares its common name \(read), which does not name "
            + "'\(host)' either"
    }

    /// Which iOS releases a validity maximum belongs to: 398 days came with iOS 14, and the maximums for leaves
    /// issued before 1 March 2018 went with iOS 15.5 (Security-60158.120's `set_ssl_validity_periods`).
    private static func validityRelease(maximumDays: Int, anchor: AnchorSource?) -> String {
        guard anchor == .system else { return "iOS 13 and later" }
        switch maximumDays {
        case 398: return "iOS 14 and later"
        case 825: return "iOS 13 and later"
        default: return "iOS 13 to 15.4"
        }
    }

    /// Which leaves a validity maximum applies to, as Apple's trust daemon picks it.
    private static func validityWindow(maximumDays: Int, anchor: AnchorSource?) -> String {
        guard anchor == .system else { return "issued after 1 July 2019 whose chain does not end at a root built into iOS" }
        switch maximumDays {
        case 398: return "issued on or after 1 September 2020 whose chain ends at a root built into iOS"
        case 825: return "issued from 1 March 2018 to 31 August 2020 whose chain ends at a root built into iOS"
        case 1188: return "issued from 1 July 2016 to 28 February 2018 whose chain ends at a root built into iOS"
        default: return "issued before 1 July 2016 whose chain ends at a root built into iOS"
        }
    }

    /// OpenSSL's number and text for this failure (`X509_verify_cert_error_string`), as its clients print them.
    public var openSSLError: (code: Int32, text: String) {
        let code = openSSLCode ?? 1  // X509_V_ERR_UNSPECIFIED for a failure made by hand
        return (code, OpenSSL.verifyErrorText(code))
    }
}

extension Date {
    /// "2026-06-01": the UTC day, as traces and summaries print dates.
    package var utcDay: String { String(utcTimestamp.prefix(10)) }

    /// "2026-06-01 12:00:00 UTC".
    var utcTimestamp: String {
        var seconds = time_t(timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { String(value).leftPadded(to: 2) }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }
}
