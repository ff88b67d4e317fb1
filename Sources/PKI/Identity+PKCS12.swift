internal import COpenSSL

extension Identity {
    /// The identity as a PKCS#12 file (`.p12`), the form apps and curl load client certificates from.
    ///
    /// OpenSSL 3's defaults protect it (AES-256 and PBKDF2); `password` opens it again.
    public func pkcs12(password: String, friendlyName: String? = nil) throws -> [UInt8] {
        try OpenSSL.isolatingErrors {
            guard let bundle = PKCS12_create(password, friendlyName ?? certificate.label, privateKey.pkey, certificate.x509, nil, 0, 0, 0, 0, 0) else {
                throw OpenSSL.failure("PKCS12_create")
            }
            defer { PKCS12_free(bundle) }
            return try OpenSSL.encode({ i2d_PKCS12(bundle, $0) }, "i2d_PKCS12")
        }
    }

    /// Writes `pkcs12(password:)` with mode 0600: it holds a private key.
    public func writePKCS12(to path: String, password: String) throws {
        try FileSystem.writeAtomically(pkcs12(password: password), to: path, permissions: 0o600)
    }

    /// Opens a PKCS#12 identity; `source` names it in errors.
    public init(pkcs12 bytes: [UInt8], password: String, source: String) throws {
        let (certificate, privateKey) = try OpenSSL.isolatingErrors { () throws -> (Certificate, PrivateKey) in
            func unusable(_ detail: String) -> PKIError { .badPKCS12(path: source, detail: OpenSSL.drainErrors().last ?? detail) }
            let bundle = bytes.withUnsafeBufferPointer { buffer in
                var cursor = buffer.baseAddress
                return d2i_PKCS12(nil, &cursor, buffer.count)
            }
            guard let bundle else { throw unusable("unreadable") }
            defer { PKCS12_free(bundle) }
            var key: OpaquePointer? = nil
            var x509: OpaquePointer? = nil
            // On failure PKCS12_parse frees and clears both itself.
            guard PKCS12_parse(bundle, password, &key, &x509, nil) == 1 else { throw unusable("unreadable") }
            // Owned at once, so every exit below frees what was parsed: the key by its deinit, the
            // certificate by its initializer or deinit.
            let privateKey = key.map(PrivateKey.init(takingOwnership:))
            let certificate = try x509.map { try Certificate(takingOwnership: $0) }
            guard let privateKey else { throw unusable("it holds no private key") }
            guard let certificate else { throw unusable("it holds no certificate that matches its private key") }
            return (certificate, privateKey)
        }
        self.init(certificate: certificate, privateKey: privateKey)
    }

    /// Reads and opens a `.p12` file.
    public static func load(pkcs12Path path: String, password: String) throws -> Identity {
        try Identity(pkcs12: FileSystem.read(path), password: password, source: path)
    }
}
