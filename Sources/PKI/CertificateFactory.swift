internal import COpenSSL
import Foundation

/// Issues certificates from specs, and forges leaves the way an intercepting proxy does.
///
/// `now` is the factory's clock: forged leaves are valid around it, so a scenario set in 2025 gets
/// forgeries that are valid in 2025, whatever the wall clock says.
public struct CertificateFactory: Sendable {
    public var now: Date

    public init(now: Date = Date()) {
        self.now = now
    }

    /// Generates a key and issues `spec` with it; self-signed when `issuer` is nil.
    public func makeIdentity(_ spec: CertificateSpec, keyType: KeyType = .p256, signedBy issuer: Identity? = nil) throws -> Identity {
        let key = try PrivateKey.generate(keyType)
        return Identity(certificate: try issue(spec, key: key, signedBy: issuer), privateKey: key)
    }

    /// Issues `spec` for `key`, signed by `issuer` (or self-signed when nil) with SHA-256.
    ///
    /// Nothing stops an issuer that is not a CA from signing: lessons need such chains (a leaf used as an
    /// issuer, CVE-2011-0228) to show that validation rejects them.
    public func issue(_ spec: CertificateSpec, key: PrivateKey, signedBy issuer: Identity? = nil) throws -> Certificate {
        try issue(spec, key: key, signedBy: issuer, poisoned: false)
    }

    /// As above; `poisoned` adds the critical precertificate poison extension last, making it a precertificate.
    func issue(_ spec: CertificateSpec, key: PrivateKey, signedBy issuer: Identity?, poisoned: Bool) throws -> Certificate {
        try validate(spec)
        return try OpenSSL.isolatingErrors {
            guard let x509 = X509_new() else { throw OpenSSL.failure("X509_new") }
            return try Certificate(takingOwnership: build(x509, spec, key: key, issuer: issuer, poisoned: poisoned), label: spec.label)
        }
    }

    /// A leaf with the real certificate's names (CN, O, SAN DNS and IP), signed by `attacker`, or
    /// self-signed when `attacker` is nil.
    ///
    /// Modelled on mitmproxy's `dummy_cert`: serverAuth, an authority key identifier but no subject key
    /// identifier, valid from two days before `now`, and one P-256 key reused for every forgery in the
    /// process (generating a key per host would only cost time; the key is not what the client checks).
    ///
    /// With `logs`, the forgery goes through the precertificate flow (`issue(_:key:signedBy:chain:loggingTo:)`), each
    /// log given `attacker` and `chain` (the certificates above it); the attacker then holds SCTs for it.
    public func forge(
        impersonating real: Certificate, signedBy attacker: Identity?, chain: [Certificate] = [], loggingTo logs: [CTLog] = []
    ) throws -> Identity {
        let spec = CertificateSpec(
            label: (attacker == nil ? "self-signed " : "forged ") + real.label,
            subject: DistinguishedName(commonName: real.subject.commonName, organization: real.subject.organization),
            dnsNames: real.dnsNames, ipAddresses: real.ipAddresses,
            notBefore: now.addingTimeInterval(-2 * 86_400), notAfter: now.addingTimeInterval(199 * 86_400),
            // A self-signed forgery has no issuer key to identify, so it carries neither identifier.
            extendedKeyUsage: [.serverAuth], subjectKeyIdentifier: false, authorityKeyIdentifier: attacker != nil)
        let key = try Self.forgingKey.get()
        guard let attacker, !logs.isEmpty else { return Identity(certificate: try issue(spec, key: key, signedBy: attacker), privateKey: key) }
        return Identity(certificate: try issue(spec, key: key, signedBy: attacker, chain: chain, loggingTo: logs), privateKey: key)
    }

    private static let forgingKey = Result { try PrivateKey.generate(.p256) }

    // MARK: - Building

    private func validate(_ spec: CertificateSpec) throws {
        func invalid(_ field: String, _ reason: String) -> PKIError { .invalidSpec(label: spec.label, field: field, reason: reason) }
        guard spec.notBefore < spec.notAfter else { throw invalid("validity", "ends before it starts") }
        for name in spec.dnsNames where !CertificateSpec.isDNSName(name) {
            throw invalid("dnsNames", "'\(name)' is not a DNS name (\(CertificateSpec.dnsNameCharacters))")
        }
        for address in spec.ipAddresses where !CertificateSpec.isIPAddress(address) {
            throw invalid("ipAddresses", "'\(address)' is not an IPv4 or IPv6 address")
        }
        if case .authority(let pathLength?) = spec.basicConstraints, pathLength < 0 {
            throw invalid("pathLength", "must not be negative")
        }
    }

    private func build(_ x509: OpaquePointer, _ spec: CertificateSpec, key: PrivateKey, issuer: Identity?, poisoned: Bool) throws -> OpaquePointer {
        do {
            try OpenSSL.check(X509_set_version(x509, Int(X509_VERSION_3)), "X509_set_version")
            let serial = spec.serialNumber ?? UInt64.random(in: 1...UInt64(Int64.max))
            try OpenSSL.check(ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serial), "ASN1_INTEGER_set_uint64")
            guard ASN1_TIME_set(X509_getm_notBefore(x509), time_t(spec.notBefore.timeIntervalSince1970)) != nil,
                ASN1_TIME_set(X509_getm_notAfter(x509), time_t(spec.notAfter.timeIntervalSince1970)) != nil
            else { throw OpenSSL.failure("ASN1_TIME_set") }
            try OpenSSL.check(X509_set_pubkey(x509, key.pkey), "X509_set_pubkey")
            try setSubject(x509, spec.subject)
            let issuerX509 = issuer?.certificate.x509 ?? x509
            try OpenSSL.check(X509_set_issuer_name(x509, X509_get_subject_name(issuerX509)), "X509_set_issuer_name")
            for (nid, value) in extensions(spec) {
                try addExtension(x509, issuer: issuerX509, nid: nid, value: value)
            }
            // The poison's value is an ASN.1 NULL (RFC 6962 §3.1).
            if poisoned { try Self.addRawExtension(x509, nid: NID_ct_precert_poison, critical: true, value: [5, 0]) }
            let digest = spec.signatureDigest == .sha1 ? EVP_sha1() : EVP_sha256()
            guard X509_sign(x509, (issuer?.privateKey ?? key).pkey, digest) > 0 else { throw OpenSSL.failure("X509_sign") }
            return x509
        } catch {
            X509_free(x509)
            throw error
        }
    }

    private func setSubject(_ x509: OpaquePointer, _ subject: DistinguishedName) throws {
        guard let name = X509_NAME_new() else { throw OpenSSL.failure("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        for attribute in subject.attributes {
            let value = Array(attribute.value.utf8)
            try OpenSSL.check(
                X509_NAME_add_entry_by_txt(name, attribute.type, MBSTRING_UTF8, value, Int32(value.count), -1, 0),
                "X509_NAME_add_entry_by_txt(\(attribute.type))")
        }
        try OpenSSL.check(X509_set_subject_name(x509, name), "X509_set_subject_name")
    }

    /// The extensions in OpenSSL configuration syntax. The subject key identifier comes before the
    /// authority key identifier, which for a self-signed certificate is derived from it.
    private func extensions(_ spec: CertificateSpec) -> [(Int32, String)] {
        var result: [(Int32, String)] = []
        switch spec.basicConstraints {
        case .authority(let pathLength)?: result.append((NID_basic_constraints, "critical,CA:TRUE" + (pathLength.map { ",pathlen:\($0)" } ?? "")))
        case .endEntity?: result.append((NID_basic_constraints, "critical,CA:FALSE"))
        case nil: break
        }
        if let usage = spec.keyUsage, !usage.names.isEmpty { result.append((NID_key_usage, "critical," + usage.names.joined(separator: ","))) }
        if let usages = spec.extendedKeyUsage, !usages.isEmpty { result.append((NID_ext_key_usage, usages.map(\.rawValue).joined(separator: ","))) }
        if let constraints = spec.nameConstraints { result.append((NID_name_constraints, constraints.configuration)) }
        if spec.subjectKeyIdentifier { result.append((NID_subject_key_identifier, "hash")) }
        if spec.authorityKeyIdentifier { result.append((NID_authority_key_identifier, "keyid:always")) }
        let names = spec.dnsNames.map { "DNS:" + $0 } + spec.ipAddresses.map { "IP:" + $0 }
        if !names.isEmpty { result.append((NID_subject_alt_name, names.joined(separator: ","))) }
        return result
    }

    /// Appends an extension whose DER value is given as it is.
    static func addRawExtension(_ x509: OpaquePointer, nid: Int32, critical: Bool, value: [UInt8]) throws {
        guard let data = ASN1_OCTET_STRING_new() else { throw OpenSSL.failure("ASN1_OCTET_STRING_new") }
        defer { ASN1_OCTET_STRING_free(data) }
        try OpenSSL.check(ASN1_OCTET_STRING_set(data, value, Int32(value.count)), "ASN1_OCTET_STRING_set")
        guard let ext = X509_EXTENSION_create_by_NID(nil, nid, critical ? 1 : 0, data) else { throw OpenSSL.failure("X509_EXTENSION_create_by_NID") }
        defer { X509_EXTENSION_free(ext) }
        try OpenSSL.check(X509_add_ext(x509, ext, -1), "X509_add_ext")
    }

    private func addExtension(_ x509: OpaquePointer, issuer: OpaquePointer, nid: Int32, value: String) throws {
        var context = X509V3_CTX()
        COpenSSL_X509V3_set_ctx_nodb(&context)
        X509V3_set_ctx(&context, issuer, x509, nil, nil, 0)
        guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
            throw OpenSSL.failure("X509V3_EXT_conf_nid(\(String(cString: OBJ_nid2sn(nid))))")
        }
        defer { X509_EXTENSION_free(ext) }
        try OpenSSL.check(X509_add_ext(x509, ext, -1), "X509_add_ext")
    }
}
