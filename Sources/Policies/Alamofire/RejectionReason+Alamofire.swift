import PKI

/// Alamofire 5's `AFError.ServerTrustFailureReason`s that no other client has (pin mismatches and untrusted chains
/// are the shared reasons).
extension RejectionReason {
    /// `ServerTrustManager` has no evaluator for the host and `allHostsMustBeEvaluated` is true (`.noRequiredEvaluator`).
    public static let alamofireNoRequiredEvaluator = Self(code: "noRequiredEvaluator")
    /// `PinnedCertificatesTrustEvaluator` with no certificates (`.noCertificatesFound`).
    public static let alamofireNoCertificatesFound = Self(code: "noCertificatesFound")
    /// `PublicKeysTrustEvaluator` with no keys (`.noPublicKeysFound`).
    public static let alamofireNoPublicKeysFound = Self(code: "noPublicKeysFound")
    /// The revocation evaluation wanted a positive response (`.requirePositiveResponse`) that no CRL or OCSP responder gave.
    public static let alamofireRevocationCheckFailed = Self(code: "revocationCheckFailed")
}
