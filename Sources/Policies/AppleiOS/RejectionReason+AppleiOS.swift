import PKI

/// The iOS client's own rejections (App Transport Security); codes follow Apple's errSSLATS… names.
extension RejectionReason {
    /// ATS refused an `http://` load (NSURLError -1022).
    public static let atsRequiresSecureConnection = Self(code: "atsRequiresSecureConnection")
    /// ATS: the negotiated TLS version is below the minimum (errSSLATSMinimumVersionViolation).
    public static let atsMinimumVersionViolation = Self(code: "atsMinimumVersionViolation")
    /// ATS: the suite is not one ATS accepts (errSSLATSCiphersuiteViolation).
    public static let atsCiphersuiteViolation = Self(code: "atsCiphersuiteViolation")
    /// ATS: the leaf's key is too short (errSSLATSMinimumKeySizeViolation).
    public static let atsMinimumKeySizeViolation = Self(code: "atsMinimumKeySizeViolation")
    /// ATS: the leaf is signed with a digest weaker than SHA-256 (errSSLATSLeafCertificateHashAlgorithmViolation).
    public static let atsLeafCertificateHashAlgorithmViolation = Self(code: "atsLeafCertificateHashAlgorithmViolation")
    /// ATS: the system's default evaluation does not trust the chain (errSSLATSCertificateTrustViolation).
    public static func atsCertificateTrustViolation(_ failure: TrustFailure) -> Self { Self(code: "atsCertificateTrustViolation", trustFailure: failure) }
    /// NSPinnedDomains: the leaf's key is not among the pinned leaf identities, or no CA key of the path is among the CA ones
    /// (kSecPolicyCheckLeafSPKISHA256 / kSecPolicyCheckCAspkiSHA256, errSSLATSCertificateTrustViolation).
    public static let pinnedIdentityMismatch = Self(code: "pinnedIdentityMismatch")
}
