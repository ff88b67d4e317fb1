internal import COpenSSL
import Foundation

extension CertificateFactory {
    /// Issues `spec` through RFC 6962's precertificate flow: a precertificate (the poison extension, critical) signed
    /// by `issuer`, submitted to each of `logs` with `chain` (the certificates above `issuer`), then the final
    /// certificate: the same TBSCertificate without the poison and with the SCT list extension, signed again.
    ///
    /// Each SCT is timestamped at the certificate's notBefore (or `now`, if that is earlier), so a lesson's dates,
    /// which its clock fixes, fix its SCTs' too.
    public func issue(_ spec: CertificateSpec, key: PrivateKey, signedBy issuer: Identity, chain: [Certificate], loggingTo logs: [CTLog]) throws
        -> Certificate
    {
        let precertificate = try issue(spec, key: key, signedBy: issuer, poisoned: true)
        let date = min(spec.notBefore, now)
        // What every log signs over, worked out once (each working out copies the whole precertificate).
        let tbs = try precertificate.tbsWithoutPoison()
        let timestamps = try logs.map { try $0.submit(precertificate: precertificate, signing: { tbs }, chain: [issuer.certificate] + chain, at: date) }
        return try Self.finalCertificate(precertificate, timestamps: timestamps, issuer: issuer, digest: spec.signatureDigest)
    }

    /// `precertificate` without its poison and with `timestamps` as its SCT list extension, signed by `issuer` again.
    static func finalCertificate(_ precertificate: Certificate, timestamps: [SignedCertificateTimestamp], issuer: Identity, digest: SignatureDigest)
        throws -> Certificate
    {
        try OpenSSL.isolatingErrors {
            let x509 = try CertificateReadingContext.copy(precertificate.x509)
            do {
                X509_EXTENSION_free(X509_delete_ext(x509, X509_get_ext_by_NID(x509, NID_ct_precert_poison, -1)))
                try addRawExtension(x509, nid: NID_ct_precert_scts, critical: false, value: SignedCertificateTimestamp.listExtensionValue(timestamps))
                guard X509_sign(x509, issuer.privateKey.pkey, digest == .sha1 ? EVP_sha1() : EVP_sha256()) > 0 else {
                    throw OpenSSL.failure("X509_sign")
                }
            } catch {
                X509_free(x509)
                throw error
            }
            return try Certificate(takingOwnership: x509, label: precertificate.label)
        }
    }
}
