import PKI

/// One of Alamofire 5's `ServerTrustEvaluating` classes, as a value a scenario can write and compare.
///
/// Each case is the class of the same name, with Alamofire's labels and defaults; the decision each makes is
/// in `Alamofire5Client+Evaluate.swift`. Alamofire reads the default certificates and keys from the app
/// bundle (`Bundle.main.af.certificates`); a simulation has no bundle, so they are always given.
public indirect enum ServerTrustEvaluator: Hashable, Sendable, CustomStringConvertible {
    /// `DefaultTrustEvaluator(validateHost:)`: the system's evaluation, with the host name unless `validateHost` is false.
    case defaultTrust(validateHost: Bool = true)
    /// `RevocationTrustEvaluator(performDefaultValidation:validateHost:options:)`: the default checks, then a
    /// revocation evaluation (no CRL or OCSP responder is reachable in the simulation: status is unknown).
    case revocationChecking(performDefaultValidation: Bool = true, validateHost: Bool = true, options: RevocationOptions = .any)
    /// `PinnedCertificatesTrustEvaluator(certificates:acceptSelfSignedCertificates:performDefaultValidation:validateHost:)`:
    /// some certificate of the trust's chain must be byte-equal to one of `certificates`.
    case pinnedCertificates(
        certificates: [Certificate], acceptSelfSignedCertificates: Bool = false, performDefaultValidation: Bool = true, validateHost: Bool = true)
    /// `PublicKeysTrustEvaluator(keys:performDefaultValidation:validateHost:)`: some key of the trust's chain must
    /// be pinned. Each certificate stands for its public key (what `Bundle.main.af.publicKeys` reads from the
    /// app's certificates), compared as SubjectPublicKeyInfo and named by the certificate's label.
    case publicKeys(keys: [Certificate], performDefaultValidation: Bool = true, validateHost: Bool = true)
    /// `CompositeTrustEvaluator(evaluators:)`: every evaluator in order; the first that throws fails the challenge.
    case composite(evaluators: [ServerTrustEvaluator])
    /// `DisabledTrustEvaluator()`: accepts every chain. Alamofire's docs keep it for debugging.
    case disabled

    /// The evaluator as Alamofire code would construct it, certificates by label.
    public var description: String {
        switch self {
        case .defaultTrust(let validateHost):
            "DefaultTrustEvaluator(validateHost: \(validateHost))"
        case .revocationChecking(let performDefaultValidation, let validateHost, let options):
            "RevocationTrustEvaluator(performDefaultValidation: \(performDefaultValidation), validateHost: \(validateHost), options: \(options))"
        case .pinnedCertificates(let certificates, let acceptSelfSigned, let performDefaultValidation, let validateHost):
            "PinnedCertificatesTrustEvaluator(certificates: [\(SecurityPolicy.names(certificates))], acceptSelfSignedCertificates: \(acceptSelfSigned), "
                + "performDefaultValidation: \(performDefaultValidation), validateHost: \(validateHost))"
        case .publicKeys(let keys, let performDefaultValidation, let validateHost):
            "PublicKeysTrustEvaluator(keys: [\(keys.map { "key of '\($0.label)'" }.joined(separator: ", "))], "
                + "performDefaultValidation: \(performDefaultValidation), validateHost: \(validateHost))"
        case .composite(let evaluators):
            "CompositeTrustEvaluator(evaluators: [\(evaluators.map(\.className).joined(separator: ", "))])"
        case .disabled:
            "DisabledTrustEvaluator()"
        }
    }

    /// "PinnedCertificatesTrustEvaluator": Alamofire's class name.
    var className: String {
        switch self {
        case .defaultTrust: "DefaultTrustEvaluator"
        case .revocationChecking: "RevocationTrustEvaluator"
        case .pinnedCertificates: "PinnedCertificatesTrustEvaluator"
        case .publicKeys: "PublicKeysTrustEvaluator"
        case .composite: "CompositeTrustEvaluator"
        case .disabled: "DisabledTrustEvaluator"
        }
    }
}
