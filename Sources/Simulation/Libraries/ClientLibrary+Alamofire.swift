import Policies

extension ClientLibrary {
    /// Alamofire 5's `ServerTrustManager` and Alamofire 4's `ServerTrustPolicy`, with the lesson's pins as the
    /// server host's evaluator or policy.
    static let alamofire = ClientLibrary(
        name: "Alamofire",
        models: [
            Model(.alamofire5) { scenario, world in try scenario.alamofire5Client(in: world) },
            Model(.alamofire4) { scenario, world in try scenario.alamofire4Client(in: world) },
        ],
        checks: TraceStep.Check.alamofireChecks + [.urlSessionChallengeHook, .secTrustEvaluateHook])
}

extension ClientModelName {
    /// Alamofire 5's `ServerTrustManager` and trust evaluators.
    public static let alamofire5 = ClientModelName("alamofire-5", displayName: "Alamofire 5")
    /// Alamofire 4's `ServerTrustPolicy`.
    public static let alamofire4 = ClientModelName("alamofire-4", displayName: "Alamofire 4")
}

extension Scenario {
    fileprivate func alamofire5Client(in world: World) throws -> Alamofire5Client {
        let pins = try pinnedCertificates(in: world)
        let evaluator: ServerTrustEvaluator =
            switch client.policy.pinningMode {
            case .none: .defaultTrust()
            case .certificate: .pinnedCertificates(certificates: pins)
            case .publicKey: .publicKeys(keys: pins)
            }
        return Alamofire5Client(serverTrustManager: ServerTrustManager(evaluators: [server.host: evaluator]), infoPlistPins: try infoPlistPins(in: world))
    }

    fileprivate func alamofire4Client(in world: World) throws -> Alamofire4Client {
        let pins = try pinnedCertificates(in: world)
        let policy: ServerTrustPolicy =
            switch client.policy.pinningMode {
            case .none: .performDefaultEvaluation(validateHost: true)
            case .certificate: .pinCertificates(certificates: pins, validateCertificateChain: true, validateHost: true)
            case .publicKey: .pinPublicKeys(publicKeys: pins, validateCertificateChain: true, validateHost: true)
            }
        return Alamofire4Client(
            serverTrustPolicyManager: ServerTrustPolicyManager(policies: [server.host: policy]), infoPlistPins: try infoPlistPins(in: world))
    }
}
