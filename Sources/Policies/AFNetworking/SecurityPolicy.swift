import PKI

/// AFNetworking 4.x's `AFSecurityPolicy`, with its names kept verbatim so learners can read both side by side.
///
/// The decision procedure is in `SecurityPolicy+Evaluate.swift`; `Docs/policy.md` explains it.
public struct SecurityPolicy: Sendable, Equatable {
    /// Which release's `AFSecurityPolicy.m` decides (default: 4.0.x).
    public var version: AFNetworkingVersion
    /// AF: `SSLPinningMode` (default none).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // AFNetworking's property name, kept verbatim so learners can compare.
    public var SSLPinningMode: SSLPinningMode
    /// AF: `allowInvalidCertificates` (default NO): accept chains the trust store does not validate.
    public var allowInvalidCertificates: Bool
    /// AF: `validatesDomainName` (default YES): check the host name against the leaf.
    public var validatesDomainName: Bool
    /// AF: `pinnedCertificates`, an `NSSet` of DER data; a set here too, so duplicates count once.
    public var pinnedCertificates: Set<Certificate>
    /// AF 2.1–2.5.4: `validatesCertificateChain` (default YES): every certificate of the chain (or its key)
    /// must be pinned, not just one. Releases without the property ignore it.
    public var validatesCertificateChain: Bool
    /// Not AFNetworking's: true when the attacker's `secTrustEvaluate` hook patches the `SecTrustEvaluate` that
    /// `AFServerTrustIsValid` calls, so every evaluation the policy makes reads success.
    public var secTrustEvaluateHooked = false

    /// AF: `pinnedPublicKeys`, derived from `pinnedCertificates` (their SubjectPublicKeyInfo DER).
    public var pinnedPublicKeys: Set<[UInt8]> { Set(pinnedCertificates.map(\.publicKeyInfo)) }

    public init(
        version: AFNetworkingVersion = .v4, SSLPinningMode: SSLPinningMode = .none, allowInvalidCertificates: Bool = false,
        validatesDomainName: Bool = true, validatesCertificateChain: Bool = true, pinnedCertificates: Set<Certificate> = []
    ) {
        self.version = version
        self.validatesCertificateChain = validatesCertificateChain
        self.SSLPinningMode = SSLPinningMode
        self.allowInvalidCertificates = allowInvalidCertificates
        self.validatesDomainName = validatesDomainName
        self.pinnedCertificates = pinnedCertificates
    }

    /// AF: `+defaultPolicy`: mode none, invalid certificates refused, domain validated, nothing pinned.
    public static var defaultPolicy: SecurityPolicy { SecurityPolicy() }

    /// AF: `+policyWithPinningMode:withPinnedCertificates:`. AF's variant without certificates reads `.cer`
    /// files with `certificatesInBundle:`: 4.0 from `[NSBundle mainBundle]`, 3.0.0–3.2.1 from
    /// `bundleForClass:`, AFNetworking's own bundle, so an app that embeds AFNetworking as a framework pins
    /// nothing. A simulation has no bundle, so the certificates are always given.
    public static func policy(withPinningMode pinningMode: SSLPinningMode, pinnedCertificates: Set<Certificate>) -> SecurityPolicy {
        SecurityPolicy(SSLPinningMode: pinningMode, pinnedCertificates: pinnedCertificates)
    }
}
