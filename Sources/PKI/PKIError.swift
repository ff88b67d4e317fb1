/// Everything that can go wrong while reading, writing or building PKI material.
///
/// A rejected chain is *not* an error (that is a `TrustResult`); these are broken input and broken I/O.
/// Each description is one line that names the file (or the spec) and says what to fix.
public enum PKIError: Error, Equatable, Sendable, CustomStringConvertible {
    case cannotRead(path: String, reason: String)
    case cannotWrite(path: String, reason: String)
    case empty(path: String)
    case tooManyCertificates(path: String, limit: Int)
    case noCertificate(path: String)
    case privateKeyInsteadOfCertificate(path: String)
    case unexpectedPEMBlock(path: String, block: String, expected: String)
    case malformedCertificate(path: String, index: Int, detail: String)
    case malformedKey(path: String, detail: String)
    /// A pinned `.cer` or `.der` file that holds PEM text.
    case pemInDERFile(path: String)
    case badPKCS12(path: String, detail: String)
    /// The password does not verify the file's MAC: what `SecPKCS12Import` reports as errSecAuthFailed.
    case wrongPKCS12Password(path: String)
    case unsupportedKey(operation: String, key: String)
    case invalidSpec(label: String, field: String, reason: String)
    /// A Certificate Transparency log refused a submission.
    case ctSubmissionRefused(log: String, reason: String)
    case openSSL(operation: String, details: [String])

    /// One line: messages quote what the input holds (a PEM block's name, OpenSSL's reading of it).
    public var description: String { String(line.map { $0.isNewline ? " " : $0 }) }

    private var line: String {
        switch self {
        case .cannotRead(let path, let reason):
            return "\(path): \(reason)"
        case .cannotWrite(let path, let reason):
            return "\(path): cannot be written (\(reason))"
        case .empty(let path):
            return "\(path): the file is empty; expected a PEM or DER certificate"
        case .tooManyCertificates(let path, let limit):
            return "\(path): holds more than \(limit) certificates, the most mitmsim reads from one file"
        case .noCertificate(let path):
            return "\(path): no certificate found; expected PEM (-----BEGIN CERTIFICATE-----) or DER"
        case .privateKeyInsteadOfCertificate(let path):
            return "\(path): holds a private key where a certificate belongs; pass the certificate file instead"
        case .unexpectedPEMBlock(let path, let block, let expected):
            return "\(path): holds a '\(block)' PEM block where \(expected) belongs"
        case .malformedCertificate(let path, let index, let detail):
            return "\(path): certificate \(index + 1) is not a valid X.509 certificate (\(detail))"
        case .pemInDERFile(let path):
            let stem = path.hasSuffix(".cer") || path.hasSuffix(".der") ? String(path.dropLast(4)) : path
            return "\(path): holds PEM text, and a pinned certificate an app bundles as .cer is read as DER: SecCertificateCreateWithData returns "
                + "NULL for PEM, so to the app it is no certificate (convert it: openssl x509 -in \(path) -outform der -out \(stem)-der.cer)"
        case .malformedKey(let path, let detail):
            return "\(path): not a valid private key (\(detail)); expected PEM (-----BEGIN PRIVATE KEY-----)"
        case .badPKCS12(let path, let detail):
            return "\(path): not a PKCS#12 identity that this password opens (\(detail))"
        case .wrongPKCS12Password(let path):
            return "\(path): the password does not open this PKCS#12 file (its MAC does not verify with it)"
        case .unsupportedKey(let operation, let key):
            return "\(operation) needs an EC key, not \(key)"
        case .invalidSpec(let label, let field, let reason):
            return "certificate '\(label)': \(field) \(reason)"
        case .ctSubmissionRefused(let log, let reason):
            return "CT log '\(log)' refused the submission: \(reason)"
        case .openSSL(let operation, let details):
            let queue = details.isEmpty ? "" : ": " + details.joined(separator: "; ")
            return "OpenSSL \(operation) failed\(queue)"
        }
    }
}
