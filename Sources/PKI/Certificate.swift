internal import COpenSSL
import Foundation

/// An X.509 certificate (OpenSSL `X509`), owned and freed by this object.
///
/// Two certificates are equal when their DER bytes are, as AFNetworking compares pinned certificates
/// (`NSData` equality). The `label` is how traces name it and takes no part in equality.
// @unchecked: every property is a constant and OpenSSL only reads the X509 after init (see `x509`).
public final class Certificate: Hashable, CustomStringConvertible, @unchecked Sendable {
    // Immutable after init; OpenSSL only reads an X509 once its extension cache is filled (done in init).
    package let x509: OpaquePointer
    /// What OpenSSL's verifier is given: `x509` itself, or a copy whose two signature algorithm
    /// identifiers agree where they differed only in how they wrote RSA's NULL parameters (as Apple allows).
    package let verifiableX509: OpaquePointer

    public let label: String
    public let der: [UInt8]
    public let subject: DistinguishedName
    public let issuer: DistinguishedName
    public let dnsNames: [String]
    public let ipAddresses: [String]
    public let notBefore: Date
    public let notAfter: Date
    /// True when basicConstraints says CA:TRUE.
    public let isAuthority: Bool
    /// The DER SubjectPublicKeyInfo: what public-key pinning compares.
    public let publicKeyInfo: [UInt8]
    /// "EC P-256", "RSA 2048".
    public let keyDescription: String

    /// Takes ownership of `x509` (freed in deinit, or here if reading it fails). Labels default to the CN,
    /// then the first SAN.
    package init(takingOwnership x509: OpaquePointer, label: String? = nil) throws {
        let der: [UInt8]
        let publicKeyInfo: [UInt8]
        do {
            der = try OpenSSL.encode({ i2d_X509(x509, $0) }, "i2d_X509")
            publicKeyInfo = try OpenSSL.encode({ i2d_X509_PUBKEY(X509_get_X509_PUBKEY(x509), $0) }, "i2d_X509_PUBKEY")
        } catch {
            X509_free(x509)
            throw error
        }
        self.x509 = x509
        verifiableX509 = Self.consistentSignatureAlgorithmCopy(of: x509) ?? x509
        self.der = der
        self.publicKeyInfo = publicKeyInfo
        subject = Self.name(X509_get_subject_name(x509))
        issuer = Self.name(X509_get_issuer_name(x509))
        (dnsNames, ipAddresses) = Self.subjectAlternativeNames(x509)
        notBefore = Self.date(X509_get0_notBefore(x509))
        notAfter = Self.date(X509_get0_notAfter(x509))
        isAuthority = X509_get_extension_flags(x509) & UInt32(EXFLAG_CA) != 0
        keyDescription = X509_get0_pubkey(x509).map(PrivateKey.describe) ?? "unsupported key"
        self.label = label ?? subject.commonName ?? dnsNames.first ?? subject.description
    }

    /// Another handle on the same OpenSSL certificate (up-referenced), for certificates OpenSSL hands back.
    package convenience init(retaining x509: OpaquePointer, label: String? = nil) throws {
        X509_up_ref(x509)
        try self.init(takingOwnership: x509, label: label)
    }

    deinit {
        if verifiableX509 != x509 { X509_free(verifiableX509) }
        X509_free(x509)
    }

    /// The same certificate under another label (how a run names what it sees on the wire).
    public func relabeled(_ label: String) -> Certificate {
        // Cannot fail: this certificate was already encoded and parsed once.
        try! Certificate(retaining: x509, label: label)
    }

    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.der == rhs.der }
    public var description: String { "'\(label)'" }
    public func hash(into hasher: inout Hasher) { hasher.combine(der) }

    /// SHA-256 of the DER certificate: the fingerprint browsers and `openssl x509 -fingerprint` show.
    public var sha256Fingerprint: [UInt8] { OpenSSL.sha256(der) }

    /// Lowercase hex of `sha256Fingerprint`, as JSON output carries it.
    public var sha256Hex: String { sha256Fingerprint.hexString }

    /// Base64 SHA-256 of the SubjectPublicKeyInfo, the pin value of curl, OkHttp, TrustKit and HPKP.
    public var publicKeySHA256Base64: String { Data(OpenSSL.sha256(publicKeyInfo)).base64EncodedString() }

    /// The pin in curl's `--pinnedpubkey` form: `sha256//<base64>`.
    public var publicKeyPin: String { "sha256//" + publicKeySHA256Base64 }

    /// True when subject and issuer are the same name (a root, or a self-signed leaf).
    public var isSelfIssued: Bool { subject == issuer }

    /// Whether `issuer`'s public key verifies this certificate's signature.
    public func isSigned(by issuer: Certificate) -> Bool {
        OpenSSL.isolatingErrors {
            guard let key = X509_get0_pubkey(issuer.x509) else { return false }
            return X509_verify(verifiableX509, key) == 1
        }
    }
}

// MARK: - Reading fields out of OpenSSL

extension Certificate {
    static func name(_ name: OpaquePointer?) -> DistinguishedName {
        guard let name else { return DistinguishedName(attributes: []) }
        let attributes = (0..<X509_NAME_entry_count(name)).compactMap { index -> DistinguishedName.Attribute? in
            guard let entry = X509_NAME_get_entry(name, index),
                let object = X509_NAME_ENTRY_get_object(entry),
                let data = X509_NAME_ENTRY_get_data(entry)
            else { return nil }
            let nid = OBJ_obj2nid(object)
            let type = nid == NID_undef ? "?" : String(cString: OBJ_nid2sn(nid))
            var utf8: UnsafeMutablePointer<UInt8>? = nil
            let length = ASN1_STRING_to_UTF8(&utf8, data)
            guard length >= 0, let utf8 else { return nil }
            defer { COpenSSL_OPENSSL_free(utf8) }
            return .init(type: type, value: String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self))
        }
        return DistinguishedName(attributes: attributes)
    }

    static func subjectAlternativeNames(_ x509: OpaquePointer) -> (dns: [String], ip: [String]) {
        guard let raw = X509_get_ext_d2i(x509, NID_subject_alt_name, nil, nil) else { return ([], []) }
        let names = OpaquePointer(raw)
        defer { GENERAL_NAMES_free(names) }
        var dns: [String] = []
        var ip: [String] = []
        for index in 0..<OPENSSL_sk_num(names) {
            guard let entry = OPENSSL_sk_value(names, index)?.assumingMemoryBound(to: GENERAL_NAME.self) else { continue }
            var length: Int32 = 0
            if let bytes = COpenSSL_GENERAL_NAME_dns(entry, &length) {
                dns.append(String(decoding: UnsafeBufferPointer(start: bytes, count: Int(length)), as: UTF8.self))
            } else if let bytes = COpenSSL_GENERAL_NAME_ip(entry, &length) {
                ip.append(IPAddress.text(Array(UnsafeBufferPointer(start: bytes, count: Int(length)))))
            }
        }
        return (dns, ip)
    }

    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return .distantPast }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
