internal import COpenSSL
import Foundation

/// A Certificate Transparency log as a device's log list names it: its name, its operator and its public key.
public struct KnownLog: Hashable, Sendable {
    public let name: String
    /// Who runs it: Apple's policy counts SCTs per operator.
    public let operatorName: String
    /// The log's SubjectPublicKeyInfo, DER.
    public let publicKeyInfo: [UInt8]

    public init(name: String, operatorName: String, publicKeyInfo: [UInt8]) {
        self.name = name
        self.operatorName = operatorName
        self.publicKeyInfo = publicKeyInfo
    }

    /// A log whose public key is read from a PEM `PUBLIC KEY` block (as `openssl pkey -pubout` writes it).
    public init(name: String, operatorName: String, publicKeyPEM pem: [UInt8], source: String) throws {
        let info = try OpenSSL.withReadBIO(pem) { bio -> [UInt8] in
            guard let key = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else {
                throw PKIError.malformedKey(path: source, detail: OpenSSL.drainErrors().last ?? "no PEM public key")
            }
            defer { EVP_PKEY_free(key) }
            return try OpenSSL.encode({ i2d_PUBKEY(key, $0) }, "i2d_PUBKEY")
        }
        self.init(name: name, operatorName: operatorName, publicKeyInfo: info)
    }

    /// The public key as PEM (`-----BEGIN PUBLIC KEY-----`), as `init(name:operatorName:publicKeyPEM:source:)` reads it.
    public func publicKeyPEM() -> [UInt8] {
        let base64 = Data(publicKeyInfo).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return Array("-----BEGIN PUBLIC KEY-----\n\(base64)\n-----END PUBLIC KEY-----\n".utf8)
    }

    /// RFC 6962's log id: SHA-256 of the SubjectPublicKeyInfo.
    public var logID: [UInt8] { OpenSSL.sha256(publicKeyInfo) }
}
