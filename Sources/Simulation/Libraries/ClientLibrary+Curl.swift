import Policies

extension ClientLibrary {
    /// curl with `--pinnedpubkey` set to the lesson's keys.
    static let curl = ClientLibrary(
        name: "curl",
        models: [
            Model(.curl) { scenario, world in
                let pins = try scenario.publicKeyPins(in: world)
                return CurlClient(options: CurlOptions(pinnedPublicKey: pins.isEmpty ? nil : .hashes(pins.map(\.publicKeyPin).joined(separator: ";"))))
            }
        ],
        checks: TraceStep.Check.curlChecks)
}

extension ClientModelName {
    /// curl with `--pinnedpubkey`.
    public static let curl = ClientModelName("curl", displayName: "curl")
}
