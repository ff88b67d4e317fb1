import PKI
import Policies

extension Scenario {
    /// The client that judges this scenario's chain, as `client.library` names it, built by its library
    /// (`ClientLibrary.Model.build`) with the lesson's settings: for an AFNetworking release the whole iOS client,
    /// for a peer library the lesson's pins (`client.policy.pinningMode` and `pinnedCertificates`) in its own terms.
    ///
    /// The one place a model name becomes a model: every run, `compare` and the console come through here.
    public func clientModel(in world: World) throws -> any ClientModel {
        guard let model = client.libraries.model(named: client.library) else {
            throw ScenarioError(file: file, path: "client.library", reason: "'\(client.library)' is not a client model (\(client.libraries.names))")
        }
        let built = try model.build(self, world)
        guard !attacker.hooks.isEmpty else { return built }
        guard let hooks = client.libraries.hooks(named: attacker.hooks) else {
            throw ScenarioError(file: file, path: "attacker.hooks", reason: "names a hook no client library has (\(hookNames))")
        }
        return HookedClient(built, hooks: hooks, displayName: client.library.displayName)
    }

    /// Every hook a lesson may name, as error messages list them.
    var hookNames: String { client.libraries.hooks.map(\.name).joined(separator: ", ") }

    /// The lesson's pins as the key-pinning libraries take them: the keys of the pinned certificates, or none
    /// in pinning mode none (these libraries pin keys whichever mode an AFNetworking lesson chose).
    public func publicKeyPins(in world: World) throws -> [Certificate] {
        client.policy.pinningMode == .none ? [] : try pinnedCertificates(in: world)
    }

    /// The lesson's pinned certificates, taken from `world` in the order `client.policy.pinnedCertificates` names them.
    public func pinnedCertificates(in world: World) throws -> [Certificate] {
        try world.certificates(client.policy.pinnedCertificates, file: file, path: "client.policy.pinnedCertificates")
    }

    /// The world certificates whose keys `client.ats`'s `NSPinnedDomains` pins, by id, each once, entries in name order.
    public var atsPinnedCertificateIDs: [String] { client.ats.pinnedCertificateIDs }
}
