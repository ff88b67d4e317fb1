import Policies

extension ClientLibrary {
    /// curl with `--pinnedpubkey` set to the lesson's keys: 7.88.1, the release Debian 12 ships, and 8.17 and
    /// later, which check the host name before OpenSSL's verify result.
    static let curl = ClientLibrary(
        name: "curl",
        models: [
            Model(.curl) { scenario, world in try scenario.curlClient(.curl7_88, in: world) },
            Model(.curl8_17) { scenario, world in try scenario.curlClient(.curl8_17, in: world) },
        ],
        checks: TraceStep.Check.curlChecks)
}

extension ClientModelName {
    /// curl 7.88.1 (as every release up to 8.16) with `--pinnedpubkey`.
    public static let curl = ClientModelName("curl", displayName: "curl")
    /// curl 8.17 or later with `--pinnedpubkey`.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // curl8_17 reads as the release it is, as AFNetworkingVersion's cases do.
    public static let curl8_17 = ClientModelName("curl-8.17", displayName: "curl 8.17")
}

extension Scenario {
    fileprivate func curlClient(_ release: CurlClient.Release, in world: World) throws -> CurlClient {
        let pins = try publicKeyPins(in: world)
        return CurlClient(
            release: release, options: CurlOptions(pinnedPublicKey: pins.isEmpty ? nil : .hashes(pins.map(\.publicKeyPin).joined(separator: ";"))))
    }
}
