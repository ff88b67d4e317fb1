internal import COpenSSL

/// The kinds of key mitmsim generates: P-256 by default (fast), RSA where a lesson needs it.
public enum KeyType: String, Hashable, Sendable, CaseIterable {
    case p256
    /// Too small for a TLS chain on iOS 13 and later: for the lessons about Apple's key-size rule.
    case rsa1024
    case rsa2048
    case rsa3072
}

/// A private key (OpenSSL `EVP_PKEY`), owned and freed by this object.
// @unchecked: `pkey` is a constant and OpenSSL keys may be shared across threads for signing and reading.
public final class PrivateKey: @unchecked Sendable {
    // Immutable after init: OpenSSL keys are safe to share across threads for signing and reading.
    package let pkey: OpaquePointer

    package init(takingOwnership pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Generates a fresh key.
    ///
    /// P-256 takes microseconds; RSA takes tens to hundreds of milliseconds, so lessons default to P-256.
    public static func generate(_ type: KeyType = .p256) throws -> PrivateKey {
        try OpenSSL.isolatingErrors { try generateKey(type) }
    }

    private static func generateKey(_ type: KeyType) throws -> PrivateKey {
        let algorithm = type == .p256 ? "EC" : "RSA"
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else { throw OpenSSL.failure("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSL.check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
        switch type {
        case .p256: try OpenSSL.check(EVP_PKEY_CTX_set_group_name(context, "P-256"), "EVP_PKEY_CTX_set_group_name")
        case .rsa1024: try OpenSSL.check(EVP_PKEY_CTX_set_rsa_keygen_bits(context, 1024), "EVP_PKEY_CTX_set_rsa_keygen_bits")
        case .rsa2048: try OpenSSL.check(EVP_PKEY_CTX_set_rsa_keygen_bits(context, 2048), "EVP_PKEY_CTX_set_rsa_keygen_bits")
        case .rsa3072: try OpenSSL.check(EVP_PKEY_CTX_set_rsa_keygen_bits(context, 3072), "EVP_PKEY_CTX_set_rsa_keygen_bits")
        }
        var key: OpaquePointer? = nil
        try OpenSSL.check(EVP_PKEY_generate(context, &key), "EVP_PKEY_generate")
        guard let key else { throw OpenSSL.failure("EVP_PKEY_generate") }
        return PrivateKey(takingOwnership: key)
    }

    /// Reads a PEM private key (PKCS#8, or the traditional EC/RSA forms OpenSSL also accepts).
    public convenience init(pem: [UInt8], source: String) throws {
        let key = try OpenSSL.withReadBIO(pem) { bio in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
                throw PKIError.malformedKey(path: source, detail: OpenSSL.drainErrors().last ?? "no PEM private key")
            }
            return key
        }
        self.init(takingOwnership: key)
    }

    /// Reads a private key from PEM or DER (PKCS#8, or the traditional EC/RSA forms), as `openssl` writes them.
    public static func parse(_ bytes: [UInt8], source: String) throws -> PrivateKey {
        if bytes.firstRange(of: Array("-----BEGIN".utf8)) != nil { return try PrivateKey(pem: bytes, source: source) }
        let key = OpenSSL.isolatingErrors {
            bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                var cursor = buffer.baseAddress
                return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
            }
        }
        guard let key else { throw PKIError.malformedKey(path: source, detail: "neither PEM text nor a DER private key") }
        return PrivateKey(takingOwnership: key)
    }

    public static func load(from path: String) throws -> PrivateKey {
        try PrivateKey(pem: InputFile.read(path, kind: "a key file"), source: path)
    }

    /// PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), unencrypted: these are throw-away lab keys.
    public func pemEncoded() throws -> [UInt8] {
        try OpenSSL.writingToBIO("PEM_write_bio_PrivateKey") { PEM_write_bio_PrivateKey($0, pkey, nil, nil, 0, nil, nil) }
    }

    /// Writes the key as PKCS#8 PEM with mode 0600, atomically.
    public func write(to path: String) throws {
        try FileSystem.writeAtomically(pemEncoded(), to: path, permissions: 0o600)
    }

    /// The DER SubjectPublicKeyInfo of the matching public key: what public-key pins are computed over.
    public func publicKeyInfo() throws -> [UInt8] {
        try OpenSSL.encode({ i2d_PUBKEY(pkey, $0) }, "i2d_PUBKEY")
    }

    /// "EC P-256", "RSA 2048": how summaries and traces name a key.
    public var keyDescription: String { Self.describe(pkey) }

    static func describe(_ pkey: OpaquePointer) -> String {
        let bits = EVP_PKEY_get_bits(pkey)
        switch EVP_PKEY_get_base_id(pkey) {
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(pkey, &name, name.count, &length) == 1 else { return "EC \(bits)" }
            let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return "EC " + (["prime256v1": "P-256", "secp384r1": "P-384", "secp521r1": "P-521"][group] ?? group)
        case EVP_PKEY_RSA:
            return "RSA \(bits)"
        case let id:
            return "\(String(cString: OBJ_nid2sn(id))) \(bits)"
        }
    }
}
