import Foundation
import PKI
import Policies

/// A certificate of a lesson's world read from files instead of generated: `file` (one certificate, PEM or DER)
/// and `keyFile` (its private key, PEM or DER), paths relative to the lesson file, as readers make them with
/// `openssl`. Both are read and checked when the lesson is loaded, so `run`, the console, the lab and
/// `pki export` all use the same certificate.
public struct CertificateFile: Sendable {
    /// The paths as the lesson writes them.
    public let file: String
    public let keyFile: String
    /// The certificate with its key.
    public let identity: Identity
    /// True when `file` is named as DER (`.cer`, `.der`) but holds PEM text: an app that bundles it to pin it
    /// cannot read it (`PKIError.pemInDERFile`).
    public let isPEMNamedAsDER: Bool

    public var certificate: Certificate { identity.certificate }

    /// Reads the files that `fileKey` and `keyFileKey` of `container` name, or nil when it names none. A key of
    /// `generated` describes a certificate to make, so it is refused beside `file`.
    static func decode<Key: CodingKey>(
        _ container: KeyedDecodingContainer<Key>, file fileKey: Key, keyFile keyFileKey: Key, generated: [Key], userInfo: [CodingUserInfoKey: Any]
    ) throws -> CertificateFile? {
        func refuse(_ key: Key, _ reason: String) -> DecodingError { .dataCorruptedError(forKey: key, in: container, debugDescription: reason) }
        guard let file = try container.decodeValueIfPresent(String.self, forKey: fileKey) else {
            if container.contains(keyFileKey) { throw refuse(keyFileKey, "names the key of a certificate file; give `\(fileKey.stringValue)` too") }
            return nil
        }
        guard let directory = userInfo[.scenarioDirectory] as? String else {
            throw refuse(fileKey, "names a file next to the scenario, and this scenario is not read from a file")
        }
        if let key = generated.first(where: container.contains) {
            throw refuse(key, "describes a certificate to make, and this one is read from '\(file)' (its own fields stand); remove `\(key.stringValue)`")
        }
        guard let keyFile = try container.decodeValueIfPresent(String.self, forKey: keyFileKey) else {
            throw refuse(
                keyFileKey, "missing: a certificate read from a file needs its private key (the server signs its handshake with it, a CA what it issues)")
        }
        let bytes = try read(file, in: directory, kind: "a certificate file", key: fileKey, container)
        let certificate: Certificate
        do {
            let certificates = try Certificate.parseAll(bytes, source: file)
            guard certificates.count == 1 else { throw refuse(fileKey, "'\(file)' holds \(certificates.count) certificates; name one certificate per file") }
            certificate = certificates[0]
        } catch let error as PKIError {
            throw refuse(fileKey, error.description)
        }
        let keyBytes = try read(keyFile, in: directory, kind: "a key file", key: keyFileKey, container)
        if keyBytes.firstRange(of: Array("ENCRYPTED".utf8)) != nil {
            throw refuse(keyFileKey, "'\(keyFile)' is encrypted with a passphrase; write it unencrypted with `openssl pkey -in \(keyFile) -out plain.key`")
        }
        let key: PrivateKey
        do {
            key = try PrivateKey.parse(keyBytes, source: keyFile)
            guard try key.publicKeyInfo() == certificate.publicKeyInfo else {
                throw refuse(keyFileKey, "'\(keyFile)' is not the key of '\(file)' (the certificate carries another public key)")
            }
        } catch let error as PKIError {
            throw refuse(keyFileKey, error.description)
        }
        return CertificateFile(
            file: file, keyFile: keyFile, identity: Identity(certificate: certificate, privateKey: key),
            isPEMNamedAsDER: Certificate.isPEMNamedAsDER(bytes, name: file))
    }

    /// `name` relative to `directory` (the working directory when empty), unless it is absolute.
    static func path(_ name: String, in directory: String) -> String {
        name.hasPrefix("/") || directory.isEmpty ? name : directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func read<Key: CodingKey>(
        _ name: String, in directory: String, kind: String, key: Key, _ container: KeyedDecodingContainer<Key>
    ) throws -> [UInt8] {
        do {
            return try InputFile.read(path(name, in: directory), limit: Certificate.fileSizeLimit, kind: kind)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "'\(name)' \(error.reason)")
        }
    }
}
