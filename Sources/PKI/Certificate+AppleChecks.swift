internal import COpenSSL

/// What Apple's key-size, signature-hash, extended-key-usage and certificate-shape rules read from a certificate.
extension Certificate {
    enum KeyAlgorithm { case rsa, ec, edDSA, other }

    /// The public key's algorithm and its size in bits.
    var keyStrength: (algorithm: KeyAlgorithm, bits: Int) {
        guard let key = X509_get0_pubkey(x509) else { return (.other, 0) }
        let bits = Int(EVP_PKEY_get_bits(key))
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA, EVP_PKEY_RSA_PSS: return (.rsa, bits)
        case EVP_PKEY_EC: return (.ec, bits)
        case EVP_PKEY_ED25519, EVP_PKEY_ED448: return (.edDSA, bits)
        default: return (.other, bits)
        }
    }

    /// True when the key is at least `rsa` bits for RSA or `ec` bits for EC. An EdDSA key passes and a key of any
    /// other algorithm (DSA) fails, as Apple's `SecCertificateIsWeakKey` counts them.
    package func keyIsAtLeast(rsa: Int, ec: Int) -> Bool {
        let (algorithm, bits) = keyStrength
        switch algorithm {
        case .rsa: return bits >= rsa
        case .ec: return bits >= ec
        case .edDSA: return true
        case .other: return false
        }
    }

    /// "SHA-256", "SHA-1": the digest this certificate's signature was made with, or nil when its algorithm
    /// names none of these (Ed25519 has no separate digest).
    package var signatureDigest: String? {
        var digest: Int32 = NID_undef
        guard OBJ_find_sigid_algs(X509_get_signature_nid(x509), &digest, nil) == 1 else { return nil }
        return [
            NID_md2: "MD2", NID_md4: "MD4", NID_md5: "MD5", NID_sha1: "SHA-1", NID_sha224: "SHA-224", NID_sha256: "SHA-256",
            NID_sha384: "SHA-384", NID_sha512: "SHA-512",
        ][digest]
    }

    /// "SHA-1", "MD5": the digest of this certificate's signature when it is one Apple counts as weak, else nil.
    var weakSignatureDigest: String? { signatureDigest.flatMap { ["MD2", "MD4", "MD5", "SHA-1"].contains($0) ? $0 : nil } }

    /// True when its own key verifies its signature, as Apple tests for a self-signed certificate.
    var isSelfSigned: Bool { isSelfIssued && isSigned(by: self) }

    /// True when the certificate has an extended key usage extension that lists serverAuth itself.
    var listsServerAuthentication: Bool {
        X509_get_extension_flags(x509) & UInt32(EXFLAG_XKUSAGE) != 0 && X509_get_extended_key_usage(x509) & UInt32(XKU_SSL_SERVER) != 0
    }

    /// True when Apple's SSL policy lets this certificate identify a server by its extended key usage (`set_ssl_ekus`): it
    /// has none, or one listing serverAuth, any purpose or Server Gated Cryptography. The policy checks no keyUsage.
    var extendedKeyUsageAllowsTLSServer: Bool {
        X509_get_extension_flags(x509) & UInt32(EXFLAG_XKUSAGE) == 0
            || X509_get_extended_key_usage(x509) & UInt32(XKU_SSL_SERVER | XKU_SGC | XKU_ANYEKU) != 0
    }

    /// True for a version 3 certificate without basicConstraints: Apple lets no such certificate sign another, an anchor
    /// included (`SecPVCParentCertificateChecks`), where OpenSSL lets a trust anchor whose keyUsage allows keyCertSign pass.
    var isVersion3WithoutBasicConstraints: Bool {
        X509_get_version(x509) >= 2 && X509_get_extension_flags(x509) & UInt32(EXFLAG_BCONS) == 0
    }

    /// True when the subject is empty and Apple refuses it (`SecPolicyCheckCertNonEmptySubject`): always on a CA, and on a
    /// leaf unless its subjectAltName is marked critical.
    var hasRefusedEmptySubject: Bool {
        guard let subject = X509_get_subject_name(x509), X509_NAME_entry_count(subject) == 0 else { return false }
        if isAuthority { return true }
        let index = X509_get_ext_by_NID(x509, NID_subject_alt_name, -1)
        guard index >= 0, let extensionField = X509_get_ext(x509, index) else { return true }
        return X509_EXTENSION_get_critical(extensionField) != 1
    }

    /// True when an extension of a type Apple parses (`SecCertificateInitializeExtensionParsers`) does not decode as that type.
    /// OpenSSL decoded the types it reads when it loaded the certificate and flagged one that failed (`EXFLAG_INVALID`); the
    /// others are decoded here, each by OpenSSL's decoder for its type.
    var hasUnparseableKnownExtension: Bool {
        if X509_get_extension_flags(x509) & UInt32(EXFLAG_INVALID) != 0 { return true }
        return (0..<X509_get_ext_count(x509)).contains { index in
            guard let extensionField = X509_get_ext(x509, index), let object = X509_EXTENSION_get_object(extensionField),
                Self.typesOnlyAppleReads.contains(OBJ_obj2nid(object))
            else { return false }
            return COpenSSL_X509_EXTENSION_decodes(extensionField) == 0
        }
    }

    /// The types in Apple's parser list that OpenSSL does not decode when it loads a certificate (it decodes basicConstraints,
    /// keyUsage, extendedKeyUsage, the SAN, nameConstraints, the CRL distribution points and the Netscape type).
    private static let typesOnlyAppleReads: Set<Int32> = [
        NID_subject_key_identifier, NID_authority_key_identifier, NID_private_key_usage_period, NID_issuer_alt_name,
        NID_certificate_policies, NID_policy_mappings, NID_policy_constraints, NID_inhibit_any_policy, NID_info_access,
        NID_sinfo_access, NID_id_pkix_OCSP_noCheck,
    ]
}
