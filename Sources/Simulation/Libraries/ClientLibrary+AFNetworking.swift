import Policies

extension ClientLibrary {
    /// AFNetworking, by release: the whole iOS client (ATS, the challenge handler, `AFSecurityPolicy`) with the
    /// lesson's policy, and in an audit the iOS app of the Info.plist and the `--afnetworking` file.
    static let afNetworking = ClientLibrary(
        name: "AFNetworking",
        models: AFNetworkingVersion.allCases.map { release in
            Model(.afnetworking(release)) { scenario, world in try scenario.iOSClient(release, in: world) }
        },
        checks: TraceStep.Check.afNetworkingChecks + TraceStep.Check.appleIOSChecks
            + [.setSSLPinningModeHook, .setAllowInvalidCertificatesHook, .urlSessionChallengeHook, .secTrustEvaluateHook],
        lessonOptions: [], hooks: [.setSSLPinningMode, .setAllowInvalidCertificates, .urlSessionChallenge, .secTrustEvaluate],
        clientKeys: Set(ClientSpec.CodingKeys.allCases.map(\.stringValue)), auditJudges: { $0.iOSJudges })
}

extension ClientModelName {
    /// The iOS client with this release's `AFSecurityPolicy`.
    public static func afnetworking(_ release: AFNetworkingVersion) -> ClientModelName { ClientModelName(release.rawValue, displayName: release.displayName) }

    /// The AFNetworking release, or nil for a peer library.
    public var afnetworking: AFNetworkingVersion? { AFNetworkingVersion(rawValue: rawValue) }
}

extension Scenario {
    /// The whole iOS client with `release`'s `AFSecurityPolicy` set as the lesson sets it.
    fileprivate func iOSClient(_ release: AFNetworkingVersion, in world: World) throws -> IOSClient {
        let spec = client.policy
        let policy = SecurityPolicy(
            version: release, SSLPinningMode: spec.pinningMode, allowInvalidCertificates: spec.allowInvalidCertificates,
            validatesDomainName: spec.validatesDomainName, validatesCertificateChain: spec.validatesCertificateChain,
            pinnedCertificates: Set(try pinnedCertificates(in: world)))
        return IOSClient(ats: client.ats, challengeHandler: client.challengeHandler, policy: policy, pinnedKeys: try infoPlistPins(in: world).pinnedKeys)
    }
}
