internal import COpenSSL

extension Certificate {
    /// The RSA PKCS#1 v1.5 signature algorithms, whose parameters are NULL by the book but often left out.
    private static let pkcs1Algorithms: Set<Int32> = [
        NID_md5WithRSAEncryption, NID_sha1WithRSAEncryption, NID_sha224WithRSAEncryption, NID_sha256WithRSAEncryption,
        NID_sha384WithRSAEncryption, NID_sha512WithRSAEncryption,
    ]

    /// A copy of `x509` whose outer signature AlgorithmIdentifier is the signed one inside the TBS, when
    /// the two differ only in how an RSA PKCS#1 v1.5 algorithm writes its parameters (absent or NULL);
    /// nil otherwise.
    ///
    /// Apple accepts that difference; OpenSSL calls it an inconsistent signature algorithm and fails the
    /// signature. The outer identifier is not signed, so replacing it leaves the signature valid.
    static func consistentSignatureAlgorithmCopy(of x509: OpaquePointer) -> OpaquePointer? {
        var outer: UnsafePointer<X509_ALGOR>? = nil
        X509_get0_signature(nil, &outer, x509)
        guard let outer, let inner = X509_get0_tbs_sigalg(x509), X509_ALGOR_cmp(outer, inner) != 0,
            differsOnlyInNullParameters(outer, inner)
        else { return nil }
        return OpenSSL.isolatingErrors {
            guard let copy = X509_dup(x509) else { return nil }
            defer { X509_free(copy) }
            var copyOuter: UnsafePointer<X509_ALGOR>? = nil
            X509_get0_signature(nil, &copyOuter, copy)
            // The copy is ours and not yet shared: writing through OpenSSL's const accessor is safe here.
            guard let copyOuter, X509_ALGOR_copy(UnsafeMutablePointer(mutating: copyOuter), inner) == 1,
                let der = try? OpenSSL.encode({ i2d_X509(copy, $0) }, "i2d_X509")
            else { return nil }
            // Parsed afresh so OpenSSL's cached hash and flags describe the new encoding.
            return der.withUnsafeBufferPointer { buffer in
                var cursor = buffer.baseAddress
                return d2i_X509(nil, &cursor, buffer.count)
            }
        }
    }

    private static func differsOnlyInNullParameters(_ outer: UnsafePointer<X509_ALGOR>, _ inner: UnsafePointer<X509_ALGOR>) -> Bool {
        func parts(_ algorithm: UnsafePointer<X509_ALGOR>) -> (object: OpaquePointer?, type: Int32) {
            var object: OpaquePointer? = nil
            var type: Int32 = 0
            X509_ALGOR_get0(&object, &type, nil, algorithm)
            return (object, type)
        }
        let (outerObject, outerType) = parts(outer)
        let (innerObject, innerType) = parts(inner)
        guard let outerObject, let innerObject, OBJ_cmp(outerObject, innerObject) == 0,
            pkcs1Algorithms.contains(OBJ_obj2nid(outerObject))
        else { return false }
        return Set([outerType, innerType]) == [V_ASN1_UNDEF, V_ASN1_NULL]
    }
}
