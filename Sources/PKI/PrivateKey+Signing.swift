internal import COpenSSL

extension PrivateKey {
    /// Signs `bytes` with SHA-256 (ECDSA for an EC key, PKCS#1 v1.5 for RSA), DER-encoded as X.509 and TLS carry it.
    package func signSHA256(_ bytes: [UInt8]) throws -> [UInt8] {
        try OpenSSL.isolatingErrors {
            guard let context = EVP_MD_CTX_new() else { throw OpenSSL.failure("EVP_MD_CTX_new") }
            defer { EVP_MD_CTX_free(context) }
            try OpenSSL.check(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pkey), "EVP_DigestSignInit")
            var length = 0
            try OpenSSL.check(EVP_DigestSign(context, nil, &length, bytes, bytes.count), "EVP_DigestSign")
            var signature = [UInt8](repeating: 0, count: length)
            try OpenSSL.check(EVP_DigestSign(context, &signature, &length, bytes, bytes.count), "EVP_DigestSign")
            return Array(signature.prefix(length))
        }
    }
}
