import PKI
import Policies

extension Scenario {
    /// The client that judges this scenario's chain, as `client.library` names it, with the lesson's settings:
    /// for an AFNetworking release the whole iOS client (ATS, the challenge handler, `AFSecurityPolicy`), for a
    /// peer library the lesson's pins (`client.policy.pinningMode` and `pinnedCertificates`) in its own terms.
    ///
    /// The one place a model name becomes a model: every run, `compare` and the console come through here.
    public func clientModel(in world: World) throws -> any ClientModel {
        switch client.library {
        case .afnetworking(let release):
            let spec = client.policy
            let policy = SecurityPolicy(
                version: release, SSLPinningMode: spec.pinningMode, allowInvalidCertificates: spec.allowInvalidCertificates,
                validatesDomainName: spec.validatesDomainName, validatesCertificateChain: spec.validatesCertificateChain,
                pinnedCertificates: Set(try pinnedCertificates(in: world)))
            return IOSClient(ats: client.ats, challengeHandler: client.challengeHandler, policy: policy)
        // The peer models are built on the models branch; each becomes one line here when it is merged.
        case .alamofire5, .alamofire4, .trustkit, .okhttp, .okhttp3_1_1, .androidNSC, .curl:
            throw ScenarioError(file: file, path: "client.library", reason: "\(client.library) arrives with the models branch (not in this build yet)")
        }
    }

    /// The lesson's pinned certificates, taken from `world` in the order `client.policy.pinnedCertificates` names them.
    func pinnedCertificates(in world: World) throws -> [Certificate] {
        try world.certificates(client.policy.pinnedCertificates, file: file, path: "client.policy.pinnedCertificates")
    }
}
