import Foundation

/// Why a chain did not validate, attached to the certificate it concerns.
///
/// The kinds are the ones a learner meets (and SecTrust reports); OpenSSL codes without a lesson of their
/// own fall into `other` with OpenSSL's text.
public struct TrustFailure: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case untrustedRoot
        case missingIssuer
        case expired
        case notYetValid
        case hostnameMismatch(host: String)
        case issuerNotCA
        case badSignature
        case wrongExtendedKeyUsage
        case pathLengthExceeded
        case other(code: Int32, message: String)

        /// A stable identifier for JSON and tests.
        public var code: String {
            switch self {
            case .untrustedRoot: "untrustedRoot"
            case .missingIssuer: "missingIssuer"
            case .expired: "expired"
            case .notYetValid: "notYetValid"
            case .hostnameMismatch: "hostnameMismatch"
            case .issuerNotCA: "issuerNotCA"
            case .badSignature: "badSignature"
            case .wrongExtendedKeyUsage: "wrongExtendedKeyUsage"
            case .pathLengthExceeded: "pathLengthExceeded"
            case .other(let code, _): "openssl\(code)"
            }
        }
    }

    public let kind: Kind
    public let certificate: Certificate

    public init(kind: Kind, certificate: Certificate) {
        self.kind = kind
        self.certificate = certificate
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
        case .hostnameMismatch(let host):
            let common = certificate.subject.commonName.map { "; its common name '\($0)' is never used" } ?? ""
            let names = certificate.dnsNames + certificate.ipAddresses
            let listed = names.isEmpty ? "has no names in its SAN" : "is issued for " + names.joined(separator: ", ")
            return "\(name) \(listed), not '\(host)'\(common)"
        case .issuerNotCA:
            return "\(name) signed a certificate but is not a certificate authority (no basicConstraints CA:TRUE)"
        case .badSignature:
            return "the signature on \(name) does not verify with its issuer's public key"
        case .wrongExtendedKeyUsage:
            return "\(name) is not allowed to identify a TLS server (key usage or extended key usage)"
        case .pathLengthExceeded:
            return "\(name) has more certificate authorities below it than its pathlen allows"
        case .other(let code, let message):
            return "\(name) failed OpenSSL check \(code): \(message)"
        }
    }
}

extension Date {
    /// "2026-06-01": the UTC day, as traces and summaries print dates.
    var utcDay: String { String(utcTimestamp.prefix(10)) }

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
