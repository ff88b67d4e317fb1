import Policies

extension Scenario {
    /// What a run adds to the client model when the model words its settings: the names the lesson gave.
    var clientSettingsContext: ClientSettingsContext {
        ClientSettingsContext(
            displayName: client.library.displayName, pinningMode: client.policy.pinningMode, pinnedCertificates: client.policy.pinnedCertificates,
            domain: client.passesDomain ? server.host : nil, platform: client.platform)
    }
}
