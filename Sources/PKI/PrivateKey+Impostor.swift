internal import COpenSSL

extension PrivateKey {
    /// A key that claims `certificate`'s public key but holds a private half the attacker made up.
    ///
    /// This is what someone who copied a server's public certificate has: OpenSSL accepts the pair
    /// (it compares public halves), so a proxy can present the real chain, but every signature it
    /// makes fails under the real public key. In TLS that is the CertificateVerify check, and it is
    /// why replaying a real certificate without its key gets an attacker nowhere.
    public static func impostor(claiming certificate: Certificate) throws -> PrivateKey {
        try OpenSSL.isolatingErrors { try makeImpostor(claiming: certificate) }
    }

    private static func makeImpostor(claiming certificate: Certificate) throws -> PrivateKey {
        guard let real = X509_get0_pubkey(certificate.x509), EVP_PKEY_get_base_id(real) == EVP_PKEY_EC else {
            throw PKIError.unsupportedKey(operation: "an impostor key", key: certificate.keyDescription)
        }
        var group = [CChar](repeating: 0, count: 64)
        var groupLength = 0
        var point = [UInt8](repeating: 0, count: 256)
        var pointLength = 0
        try OpenSSL.check(EVP_PKEY_get_group_name(real, &group, group.count, &groupLength), "EVP_PKEY_get_group_name")
        try OpenSSL.check(EVP_PKEY_get_octet_string_param(real, COpenSSL_PARAM_PUB_KEY(), &point, point.count, &pointLength), "EVP_PKEY_get_octet_string_param")

        let madeUp = try PrivateKey.generate(.p256)
        var scalar: OpaquePointer? = nil
        try OpenSSL.check(EVP_PKEY_get_bn_param(madeUp.pkey, COpenSSL_PARAM_PRIV_KEY(), &scalar), "EVP_PKEY_get_bn_param")
        defer { BN_clear_free(scalar) }

        // The builder keeps pointers to the values until OSSL_PARAM_BLD_to_param copies them.
        guard let builder = OSSL_PARAM_BLD_new() else { throw OpenSSL.failure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        let parameters = try group.withUnsafeBufferPointer { group in
            try point.withUnsafeBufferPointer { point in
                try OpenSSL.check(
                    OSSL_PARAM_BLD_push_utf8_string(builder, COpenSSL_PARAM_GROUP_NAME(), group.baseAddress, groupLength), "OSSL_PARAM_BLD_push_utf8_string")
                try OpenSSL.check(
                    OSSL_PARAM_BLD_push_octet_string(builder, COpenSSL_PARAM_PUB_KEY(), point.baseAddress, pointLength), "OSSL_PARAM_BLD_push_octet_string")
                try OpenSSL.check(OSSL_PARAM_BLD_push_BN(builder, COpenSSL_PARAM_PRIV_KEY(), scalar), "OSSL_PARAM_BLD_push_BN")
                return OSSL_PARAM_BLD_to_param(builder)
            }
        }
        guard let parameters else { throw OpenSSL.failure("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(parameters) }

        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw OpenSSL.failure("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSL.check(EVP_PKEY_fromdata_init(context), "EVP_PKEY_fromdata_init")
        var key: OpaquePointer? = nil
        try OpenSSL.check(EVP_PKEY_fromdata(context, &key, COpenSSL_EVP_PKEY_KEYPAIR(), parameters), "EVP_PKEY_fromdata")
        guard let key else { throw OpenSSL.failure("EVP_PKEY_fromdata") }
        return PrivateKey(takingOwnership: key)
    }
}
