internal import COpenSSL

extension Identity {
    /// The most times a `.p12` file may ask for its MAC key to be derived: OpenSSL writes 2048, Java 10000.
    public static let pkcs12IterationLimit = 100_000

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
            // The password is checked against the MAC before anything is decrypted, so with a MAC of bounded
            // cost a file cannot make mitmsim derive keys for minutes unless its maker knew the password.
            guard PKCS12_mac_present(bundle) == 1 else { throw PKIError.badPKCS12(path: source, detail: "it has no MAC to check the password with") }
            var iterations: UnsafePointer<ASN1_INTEGER>? = nil
            PKCS12_get0_mac(nil, nil, nil, &iterations, bundle)
            let count = iterations.map { ASN1_INTEGER_get($0) } ?? 1
            guard (1...Self.pkcs12IterationLimit).contains(count) else {
                throw PKIError.badPKCS12(path: source, detail: "it asks for \(count) MAC iterations; mitmsim allows 1 to \(Self.pkcs12IterationLimit)")
            }
            // PKCS12_parse fails alike for a wrong password and a damaged file; the MAC tells them apart, as
            // SecPKCS12Import's errSecAuthFailed does. An empty password may also mean none, as PKCS12_parse allows.
            guard PKCS12_verify_mac(bundle, password, -1) == 1 || (password.isEmpty && PKCS12_verify_mac(bundle, nil, 0) == 1) else {
                throw PKIError.wrongPKCS12Password(path: source)
            }
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
        try Identity(pkcs12: InputFile.read(path, kind: "a .p12 file"), password: password, source: path)
    }
}
