import PKI

/// AFNetworking 4.x's `AFSecurityPolicy`, with its names kept verbatim so learners can read both side by side.
///
/// The decision procedure is in `SecurityPolicy+Evaluate.swift`; `Docs/policy.md` explains it.
public struct SecurityPolicy: Sendable, Equatable {
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

    /// AF: `pinnedPublicKeys`, derived from `pinnedCertificates` (their SubjectPublicKeyInfo DER).
    public var pinnedPublicKeys: Set<[UInt8]> { Set(pinnedCertificates.map(\.publicKeyInfo)) }

    public init(
        SSLPinningMode: SSLPinningMode = .none, allowInvalidCertificates: Bool = false, validatesDomainName: Bool = true,
        pinnedCertificates: Set<Certificate> = []
    ) {
        self.SSLPinningMode = SSLPinningMode
        self.allowInvalidCertificates = allowInvalidCertificates
        self.validatesDomainName = validatesDomainName
        self.pinnedCertificates = pinnedCertificates
    }

    /// AF: `+defaultPolicy`: mode none, invalid certificates refused, domain validated, nothing pinned.
    public static var defaultPolicy: SecurityPolicy { SecurityPolicy() }

    /// AF: `+policyWithPinningMode:withPinnedCertificates:`. AF's variant without certificates reads the
    /// app bundle's `.cer` files; a simulation has no bundle, so the certificates are always given.
    public static func policy(withPinningMode pinningMode: SSLPinningMode, pinnedCertificates: Set<Certificate>) -> SecurityPolicy {
        SecurityPolicy(SSLPinningMode: pinningMode, pinnedCertificates: pinnedCertificates)
    }
}
