internal import COpenSSL

/// What Apple's key-size, signature-hash and extended-key-usage rules read from a certificate.
extension Certificate {
    enum KeyAlgorithm { case rsa, ec, other }

    /// The public key's algorithm and its size in bits.
    var keyStrength: (algorithm: KeyAlgorithm, bits: Int) {
        guard let key = X509_get0_pubkey(x509) else { return (.other, 0) }
        let bits = Int(EVP_PKEY_get_bits(key))
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA, EVP_PKEY_RSA_PSS: return (.rsa, bits)
        case EVP_PKEY_EC: return (.ec, bits)
        default: return (.other, bits)
        }
    }

    /// True when the key is at least `rsa` bits for RSA or `ec` bits for EC; other algorithms pass, as with Apple.
    package func keyIsAtLeast(rsa: Int, ec: Int) -> Bool {
        let (algorithm, bits) = keyStrength
        switch algorithm {
        case .rsa: return bits >= rsa
        case .ec: return bits >= ec
        case .other: return true
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
}
