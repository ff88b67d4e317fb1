/// Alamofire's checks: Alamofire 5's `ServerTrustManager` and its `ServerTrustEvaluating` evaluators, and Alamofire 4's
/// `ServerTrustPolicy`.
extension TraceStep.Check {
    /// Alamofire 5: `ServerTrustManager.serverTrustEvaluator(forHost:)`, the exact host's evaluator, or none.
    public static let alamofireEvaluatorLookup = Self(rawValue: "alamofireEvaluatorLookup")
    /// Alamofire 5: which evaluator runs, with its settings (one per evaluator of a `CompositeTrustEvaluator`).
    public static let alamofireEvaluator = Self(rawValue: "alamofireEvaluator")
    /// Alamofire 5: `performValidation(forHost:)`, an evaluation with `SecPolicyCreateSSL(true, host)`: the whole chain and the host name.
    public static let alamofireHostValidation = Self(rawValue: "alamofireHostValidation")
    /// Alamofire 5: `performDefaultValidation(forHost:)`, an evaluation with `SecPolicyCreateSSL(true, nil)`: the chain, no host name.
    public static let alamofireDefaultValidation = Self(rawValue: "alamofireDefaultValidation")
    /// Alamofire 5: `RevocationTrustEvaluator`'s evaluation with `SecPolicyCreateRevocation(options)`.
    // swift-format-ignore: DontRepeatTypeInStaticProperties
    // The name is the raw value lessons and JSON write.
    public static let alamofireRevocationCheck = Self(rawValue: "alamofireRevocationCheck")
    /// Alamofire 5: the pinning evaluators throw before evaluating anything when they have nothing pinned.
    public static let alamofirePinsPresent = Self(rawValue: "alamofirePinsPresent")
    /// Alamofire 5: `acceptSelfSignedCertificates` makes the pinned certificates the only anchors.
    public static let alamofireSelfSignedAnchors = Self(rawValue: "alamofireSelfSignedAnchors")
    /// Alamofire 5: some certificate of the trust's chain is byte-equal to a pinned one.
    public static let alamofireCertificatePinning = Self(rawValue: "alamofireCertificatePinning")
    /// Alamofire 5: some key of the trust's chain is a pinned key.
    public static let alamofirePublicKeyPinning = Self(rawValue: "alamofirePublicKeyPinning")
    /// Alamofire 5: `DisabledTrustEvaluator` checks nothing.
    public static let alamofireDisabledEvaluation = Self(rawValue: "alamofireDisabledEvaluation")
    /// Alamofire 4 and 5: what App Transport Security would add on a device, which the library model does not judge.
    public static let alamofireAppTransportSecurity = Self(rawValue: "alamofireAppTransportSecurity")
    /// Alamofire 4: `ServerTrustPolicyManager.serverTrustPolicy(forHost:)`, the exact host's policy, or none.
    public static let alamofire4PolicyLookup = Self(rawValue: "alamofire4PolicyLookup")
    /// Alamofire 4: `trustIsValid`, one evaluation with `SecPolicyCreateSSL(true, host or nil)` (and the revocation policy or pinned anchors).
    public static let alamofire4TrustEvaluation = Self(rawValue: "alamofire4TrustEvaluation")
    /// Alamofire 4: `.pinCertificates` without chain validation, a byte match over the trust's chain.
    public static let alamofire4CertificatePinning = Self(rawValue: "alamofire4CertificatePinning")
    /// Alamofire 4: `.pinPublicKeys`, a key match over the trust's chain.
    public static let alamofire4PublicKeyPinning = Self(rawValue: "alamofire4PublicKeyPinning")
    /// Alamofire 4: `.disableEvaluation` checks nothing.
    public static let alamofire4DisabledEvaluation = Self(rawValue: "alamofire4DisabledEvaluation")

    /// Every check above, as the registry of client libraries lists them.
    public static let alamofireChecks: [Self] = [
        .alamofireEvaluatorLookup, .alamofireEvaluator, .alamofireHostValidation, .alamofireDefaultValidation, .alamofireRevocationCheck, .alamofirePinsPresent,
        .alamofireSelfSignedAnchors, .alamofireCertificatePinning, .alamofirePublicKeyPinning, .alamofireDisabledEvaluation, .alamofireAppTransportSecurity,
        .alamofire4PolicyLookup, .alamofire4TrustEvaluation, .alamofire4CertificatePinning, .alamofire4PublicKeyPinning, .alamofire4DisabledEvaluation,
    ]
}
