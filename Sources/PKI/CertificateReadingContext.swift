internal import COpenSSL

/// The OpenSSL library context mitmsim reads certificates in: its TLS clients (the proxy's side towards the server,
/// the apps), the copies `PKI` makes of certificates to edit them, and the Certificate Transparency checks (the
/// logs' keys, the SCTs). OpenSSL's default provider, offering only the key decoders a certificate in a TLS chain
/// needs and only the ciphers OpenSSL's TLS can use.
///
/// OpenSSL 3.0 reads the public key of every certificate it parses through a decoder chain it builds anew each
/// time, by enumerating every decoder of every provider in the context (the default provider has 40) and every key
/// manager, which it finds by copying the context's whole table of algorithms fetched so far; the proxy pays for
/// this for each certificate of the server's chain on every connection: 3.1 M of the 6.1 M instructions of its
/// handshake with the server went to reading the two certificates. In this context every algorithm is the default
/// provider's own, passed on by a provider that answers each query with the default provider's answer, except two
/// lists: its decoders are only those that read the form a certificate holds its key in (DER
/// SubjectPublicKeyInfo) for the key types of `signingKeyTypes`, and its ciphers are only those OpenSSL 3.0's TLS
/// fetches (`tlsCiphers`): 16 of the 124, all of which would otherwise fill that table once a TLS context is made.
/// Reading the two certificates then takes 1.3 M. Nothing else changes: the same cipher suites are offered (a test
/// compares them with a context in OpenSSL's default library context), and the same key exchange, signatures and
/// checks run. OpenSSL's configuration file is not read into this context (its provider sections would bring back
/// every decoder); the TLS settings it may give (`system_default`) are process-wide in OpenSSL and still apply to
/// every `SSL_CTX`, as in the default context.
package enum CertificateReadingContext {
    // Each of these is made once and only read afterwards; OpenSSL's library contexts, providers and their
    // tables may be used from any thread.

    /// The context, made once; creating it fails only when OpenSSL is out of memory.
    nonisolated(unsafe) package static let shared: OpaquePointer = {
        guard let context = OSSL_LIB_CTX_new(),
            // The provider's entry point: its context is the default provider's, so the default provider's
            // functions, called through this provider, find the state they expect.
            OSSL_PROVIDER_add_builtin(
                context, "mitmsim-certificate-reading",
                { _, _, functions, providerContext in
                    functions?.pointee = dispatch
                    providerContext?.pointee = OSSL_PROVIDER_get0_provider_ctx(defaultProvider)
                    return 1
                }) == 1,
            OSSL_PROVIDER_load(context, "mitmsim-certificate-reading") != nil
        else { preconditionFailure("OpenSSL could not create a library context: out of memory") }
        return context
    }()

    /// OpenSSL's default provider, loaded in a library context of its own so that only this one sees its decoders.
    nonisolated(unsafe) private static let defaultProvider: OpaquePointer = {
        guard let context = OSSL_LIB_CTX_new(), let provider = OSSL_PROVIDER_load(context, "default") else {
            preconditionFailure("OpenSSL could not load its default provider: out of memory")
        }
        return provider
    }()

    /// The key types a certificate can hold to sign a TLS handshake OpenSSL negotiates (DSA in TLS 1.2 only).
    private static let signingKeyTypes: Set<Substring> = ["RSA", "RSA-PSS", "EC", "ED25519", "ED448", "DSA"]

    /// The ciphers OpenSSL 3.0's TLS fetches, by the names it asks for: one for each cipher a cipher suite can use
    /// (`ssl_load_ciphers`), and the stitched cipher-and-MAC ones it tries first for the suites that pair them
    /// (`ssl_cipher_get_evp`). Those the default provider does not have (DES, RC2, RC4, IDEA, SEED, GOST) stay
    /// unavailable, as in the default context.
    private static let tlsCiphers: Set<String> = Set(
        [
            NID_des_cbc, NID_des_ede3_cbc, NID_rc4, NID_rc2_cbc, NID_idea_cbc, NID_aes_128_cbc, NID_aes_256_cbc,
            NID_camellia_128_cbc, NID_camellia_256_cbc, NID_gost89_cnt, NID_seed_cbc, NID_aes_128_gcm, NID_aes_256_gcm,
            NID_aes_128_ccm, NID_aes_256_ccm, NID_gost89_cnt_12, NID_chacha20_poly1305, NID_aria_128_gcm,
            NID_aria_256_gcm, NID_magma_ctr_acpkm, NID_kuznyechik_ctr_acpkm, NID_rc4_hmac_md5,
            NID_aes_128_cbc_hmac_sha1, NID_aes_256_cbc_hmac_sha1, NID_aes_128_cbc_hmac_sha256,
            NID_aes_256_cbc_hmac_sha256,
        ].map { String(cString: OBJ_nid2sn($0)).lowercased() })

    /// The default provider's decoders that read a DER SubjectPublicKeyInfo into a key of `signingKeyTypes`.
    nonisolated(unsafe) private static let keyDecoders = defaultAlgorithms(OSSL_OP_DECODER) { names, properties in
        properties.isSuperset(of: ["input=der", "structure=SubjectPublicKeyInfo"])
            && !names.isDisjoint(with: signingKeyTypes)
    }

    /// The default provider's ciphers that OpenSSL's TLS may fetch (OpenSSL matches names without regard to case).
    nonisolated(unsafe) private static let ciphers = defaultAlgorithms(OSSL_OP_CIPHER) { names, _ in
        !tlsCiphers.isDisjoint(with: names.map { $0.lowercased() })
    }

    /// The default provider's algorithms for `operation` that `keeps`, by their names and properties, in a table
    /// that ends with an empty entry as OpenSSL's do; their names and implementations are the provider's own static
    /// data.
    private static func defaultAlgorithms(
        _ operation: Int32, keeping keeps: (_ names: Set<Substring>, _ properties: Set<Substring>) -> Bool
    ) -> UnsafePointer<OSSL_ALGORITHM> {
        var noCache: Int32 = 0
        var kept: [OSSL_ALGORITHM] = []
        var algorithm = OSSL_PROVIDER_query_operation(defaultProvider, operation, &noCache)
        while let current = algorithm?.pointee, current.algorithm_names != nil {
            let names = Set(String(cString: current.algorithm_names).split(separator: ":"))
            if keeps(names, Set(String(cString: current.property_definition).split(separator: ","))) {
                kept.append(current)
            }
            algorithm = algorithm.map { $0 + 1 }
        }
        let table = UnsafeMutablePointer<OSSL_ALGORITHM>.allocate(capacity: kept.count + 1)
        table.initialize(from: kept, count: kept.count)
        (table + kept.count).initialize(to: OSSL_ALGORITHM())
        return UnsafePointer(table)
    }

    private typealias Function = @convention(c) () -> Void

    /// What the provider does: each answer is the default provider's, except the lists of decoders and ciphers.
    nonisolated(unsafe) private static let dispatch: UnsafePointer<OSSL_DISPATCH> = {
        let query: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutablePointer<Int32>?) -> UnsafePointer<OSSL_ALGORITHM>? = {
            _, operation, noCache in
            switch operation {
            case OSSL_OP_DECODER:
                noCache?.pointee = 0
                return keyDecoders
            case OSSL_OP_CIPHER:
                noCache?.pointee = 0
                return ciphers
            default: return OSSL_PROVIDER_query_operation(defaultProvider, operation, noCache)
            }
        }
        let capabilities:
            @convention(c) (
                UnsafeMutableRawPointer?, UnsafePointer<CChar>?, (@convention(c) (UnsafePointer<OSSL_PARAM>?, UnsafeMutableRawPointer?) -> Int32)?,
                UnsafeMutableRawPointer?
            ) -> Int32 = {
                _, capability, callback, argument in OSSL_PROVIDER_get_capabilities(defaultProvider, capability, callback, argument)
            }
        let gettableParameters: @convention(c) (UnsafeMutableRawPointer?) -> UnsafePointer<OSSL_PARAM>? = { _ in
            OSSL_PROVIDER_gettable_params(defaultProvider)
        }
        let parameters: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<OSSL_PARAM>?) -> Int32 = { _, parameters in
            OSSL_PROVIDER_get_params(defaultProvider, parameters)
        }
        let entries = [
            OSSL_DISPATCH(function_id: OSSL_FUNC_PROVIDER_QUERY_OPERATION, function: unsafeBitCast(query, to: Function.self)),
            OSSL_DISPATCH(function_id: OSSL_FUNC_PROVIDER_GET_CAPABILITIES, function: unsafeBitCast(capabilities, to: Function.self)),
            OSSL_DISPATCH(function_id: OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, function: unsafeBitCast(gettableParameters, to: Function.self)),
            OSSL_DISPATCH(function_id: OSSL_FUNC_PROVIDER_GET_PARAMS, function: unsafeBitCast(parameters, to: Function.self)),
            OSSL_DISPATCH(),
        ]
        let table = UnsafeMutablePointer<OSSL_DISPATCH>.allocate(capacity: entries.count)
        table.initialize(from: entries, count: entries.count)
        return UnsafePointer(table)
    }()

    /// A new certificate with the same encoding as `x509`, read in this context: what `X509_dup` makes, which reads
    /// its copy in OpenSSL's default context instead (twice the cost).
    static func copy(_ x509: OpaquePointer) throws -> OpaquePointer {
        let der = try OpenSSL.encode({ i2d_X509(x509, $0) }, "i2d_X509")
        // d2i_X509 reads into the certificate it is given, so the copy belongs to this context; on failure it
        // frees that certificate and clears `copy`.
        var copy = X509_new_ex(shared, nil)
        guard copy != nil else { throw OpenSSL.failure("X509_new_ex") }
        let read = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_X509(&copy, &cursor, buffer.count)
        }
        guard let read else {
            X509_free(copy)
            throw OpenSSL.failure("d2i_X509")
        }
        return read
    }
}
