internal import COpenSSL
import Foundation

extension Certificate {
    /// The most bytes mitmsim reads from a certificate, key or `.p12` file: the Mozilla root store that Linux
    /// systems ship (about 140 certificates) is about 220 KB, a server's chain a few KB.
    public static let fileSizeLimit = 1 << 20
    /// The most certificates one file may hold, for the same reason: parsing costs time and memory per certificate.
    public static let fileCertificateLimit = 1_000

    /// Parses one or more certificates from PEM (any number of blocks) or DER (one or several concatenated).
    ///
    /// `source` names the input in errors. Every byte must belong to a certificate: a truncated or
    /// padded DER file is an error, never a silently shorter list. More than `fileCertificateLimit`
    /// certificates is an error too.
    public static func parseAll(_ bytes: [UInt8], source: String) throws -> [Certificate] {
        guard bytes.contains(where: { !Self.isWhitespace($0) }) else { throw PKIError.empty(path: source) }
        return try OpenSSL.isolatingErrors {
            if bytes.starts(with: Array("-----BEGIN".utf8)) || bytes.firstRange(of: Array("\n-----BEGIN".utf8)) != nil {
                return try parsePEM(bytes, source: source)
            }
            return try parseDER(bytes, source: source)
        }
    }

    /// Reads every certificate in a file (PEM or DER), each labelled by its common name.
    public static func loadAll(from path: String) throws -> [Certificate] {
        try parseAll(InputFile.read(path, kind: "a certificate file"), source: path)
    }

    /// `loadAll` for a certificate an app pins: a `.cer` or `.der` file holding PEM text is refused, as apps read
    /// bundled certificates with `SecCertificateCreateWithData`, which takes DER only (AFNetworking's
    /// `certificatesInBundle:` bundles `.cer` files; Alamofire's also `.der` and `.crt`).
    public static func loadPinned(from path: String) throws -> [Certificate] {
        let bytes = try InputFile.read(path, kind: "a certificate file")
        if isPEMNamedAsDER(bytes, name: path) { throw PKIError.pemInDERFile(path: path) }
        return try parseAll(bytes, source: path)
    }

    /// True when `name` ends in `.cer` or `.der`, as DER certificates are named, but `bytes` are PEM text.
    public static func isPEMNamedAsDER(_ bytes: [UInt8], name: String) -> Bool {
        let lowercased = name.lowercased()
        return (lowercased.hasSuffix(".cer") || lowercased.hasSuffix(".der")) && bytes.firstRange(of: Array("-----BEGIN".utf8)) != nil
    }

    /// PEM text: one `CERTIFICATE` block.
    public func pemEncoded() throws -> [UInt8] {
        try OpenSSL.writingToBIO("PEM_write_bio_X509") { PEM_write_bio_X509($0, x509) }
    }

    /// Writes the certificate as PEM, or as DER when `path` ends in `.cer` or `.der` (what apps bundle).
    public func write(to path: String) throws {
        let isDER = path.hasSuffix(".cer") || path.hasSuffix(".der")
        try FileSystem.writeAtomically(isDER ? der : pemEncoded(), to: path, permissions: 0o644)
    }

    /// Several certificates as one PEM bundle, in order (a server chain, a trust store).
    public static func pemBundle(_ certificates: [Certificate]) throws -> [UInt8] {
        try certificates.flatMap { try $0.pemEncoded() }
    }

    /// Writes `pemBundle(certificates)`.
    public static func writeBundle(_ certificates: [Certificate], to path: String) throws {
        try FileSystem.writeAtomically(pemBundle(certificates), to: path, permissions: 0o644)
    }

    // MARK: - Parsing

    private static let privateKeyBlocks: Set<String> = ["PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"]
    private static let certificateBlocks: Set<String> = ["CERTIFICATE", "X509 CERTIFICATE", "TRUSTED CERTIFICATE"]

    private static func parsePEM(_ bytes: [UInt8], source: String) throws -> [Certificate] {
        try OpenSSL.withReadBIO(bytes) { bio in
            var certificates: [Certificate] = []
            while true {
                var name: UnsafeMutablePointer<CChar>? = nil
                var header: UnsafeMutablePointer<CChar>? = nil
                var data: UnsafeMutablePointer<UInt8>? = nil
                var length = 0
                // Each block in its own scope: the end of input is recognised by this read's reason alone.
                let (read, reason, details) = OpenSSL.isolatingErrors {
                    let read = PEM_read_bio(bio, &name, &header, &data, &length) == 1
                    return read ? (true, 0, []) : (false, ERR_GET_REASON(ERR_peek_last_error()), OpenSSL.drainErrors())
                }
                guard read, let name, let data else {
                    if reason == PEM_R_NO_START_LINE, !certificates.isEmpty { return certificates }
                    if reason == PEM_R_NO_START_LINE { throw PKIError.noCertificate(path: source) }
                    throw PKIError.malformedCertificate(path: source, index: certificates.count, detail: details.last ?? "bad PEM")
                }
                defer {
                    COpenSSL_OPENSSL_free(name)
                    COpenSSL_OPENSSL_free(header)
                    COpenSSL_OPENSSL_free(data)
                }
                let block = String(cString: name)
                if privateKeyBlocks.contains(block) { throw PKIError.privateKeyInsteadOfCertificate(path: source) }
                guard certificateBlocks.contains(block) else {
                    throw PKIError.unexpectedPEMBlock(path: source, block: block, expected: "a certificate")
                }
                let der = Array(UnsafeBufferPointer(start: data, count: length))
                let parsed = try parseDER(der, source: source, firstIndex: certificates.count)
                guard parsed.count == 1 else {
                    throw PKIError.malformedCertificate(path: source, index: certificates.count, detail: "a PEM block holds more than one certificate")
                }
                certificates += parsed
                guard certificates.count <= fileCertificateLimit else { throw PKIError.tooManyCertificates(path: source, limit: fileCertificateLimit) }
            }
        }
    }

    private static func parseDER(_ bytes: [UInt8], source: String, firstIndex: Int = 0) throws -> [Certificate] {
        var certificates: [Certificate] = []
        try bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var cursor: UnsafePointer<UInt8>? = base
            while let position = cursor, position < base + buffer.count {
                let start = position - base
                guard let x509 = d2i_X509(nil, &cursor, buffer.count - start) else {
                    let details = OpenSSL.drainErrors()
                    if certificates.isEmpty, isPrivateKey(bytes) { throw PKIError.privateKeyInsteadOfCertificate(path: source) }
                    throw PKIError.malformedCertificate(
                        path: source, index: firstIndex + certificates.count,
                        detail: "DER is truncated or malformed at byte \(start)" + (details.last.map { ": \($0)" } ?? ""))
                }
                certificates.append(try Certificate(takingOwnership: x509))
                guard firstIndex + certificates.count <= fileCertificateLimit else {
                    throw PKIError.tooManyCertificates(path: source, limit: fileCertificateLimit)
                }
            }
        }
        return certificates
    }

    private static func isPrivateKey(_ der: [UInt8]) -> Bool {
        der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            guard let key = OpenSSL.isolatingErrors({ d2i_AutoPrivateKey(nil, &cursor, buffer.count) }) else { return false }
            EVP_PKEY_free(key)
            return true
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
}
