import PKI

/// The iOS app that makes the request, as the three gates its HTTPS load passes: App Transport Security
/// (Info.plist), the URLSession server-trust challenge handler, and, when AFNetworking handles the
/// challenge, `AFSecurityPolicy`.
///
/// Its evaluation is one `PolicyEvaluation` whose steps run in that order (`IOSClient+Evaluate.swift`),
/// so the deciding step and the error the app sees come from whichever gate refused.
public struct IOSClient: Sendable, Equatable {
    /// The Info.plist's `NSAppTransportSecurity`.
    public var ats: AppTransportSecurity
    /// Who answers the server-trust challenge.
    public var challengeHandler: ChallengeHandler
    /// The policy AFNetworking's handler asks; unused by the other handlers.
    public var policy: SecurityPolicy
    /// The base64 SHA-256 of the SubjectPublicKeyInfo of each world certificate `ats.pinnedDomains` names by id.
    public var pinnedKeys: [String: String]
    /// True when the attacker's `urlSessionChallenge` hook answers the server-trust challenge in the handler's place.
    public var challengeHooked = false
    /// True when the attacker's `secTrustEvaluate` hook is on: `policy` reads success from its evaluations, and a
    /// refusal by the system's own evaluation says the hook was not applied there.
    public var secTrustEvaluateHooked = false

    public init(
        ats: AppTransportSecurity = AppTransportSecurity(), challengeHandler: ChallengeHandler = .afnetworking, policy: SecurityPolicy = .defaultPolicy,
        pinnedKeys: [String: String] = [:]
    ) {
        self.ats = ats
        self.challengeHandler = challengeHandler
        self.policy = policy
        self.pinnedKeys = pinnedKeys
    }
}
