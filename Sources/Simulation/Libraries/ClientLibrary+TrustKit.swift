import Foundation
import PKI
import Policies

extension ClientLibrary {
    /// TrustKit's `TSKPinnedDomains` for the server's host, from the lesson's pins and `client.trustKit`; in an
    /// audit, the Info.plist's `TSKConfiguration`.
    static let trustKit = ClientLibrary(
        name: "TrustKit",
        models: [
            Model(.trustkit) { scenario, world in
                TrustKitClient(configuration: try scenario.trustKitConfiguration(in: world), infoPlistPins: try scenario.infoPlistPins(in: world))
            }
        ],
        checks: TraceStep.Check.trustKitChecks + [.trustKitValidatorHook, .secTrustEvaluateHook], lessonOptions: [TrustKitLessonOptions.self],
        hooks: [.trustKitValidator], auditJudges: { $0.trustKitJudges })
}

extension ClientModelName {
    /// TrustKit's `TSKPinnedDomains`.
    public static let trustkit = ClientModelName("trustkit", displayName: "TrustKit")
}

extension Scenario {
    /// TrustKit's `TSKPinnedDomains` for the server's host: the pinned certificates' SPKI hashes, plus
    /// `backupPin` when only one is pinned and pinning is enforced (TrustKit refuses a single enforced pin);
    /// nil when nothing is pinned (TrustKit then pins no domain).
    func trustKitConfiguration(in world: World) throws -> TrustKitConfiguration? {
        // Two pinned certificates with one key are one pin to TrustKit.
        var hashes: [String] = []
        for hash in try publicKeyPins(in: world).map(\.publicKeySHA256Base64) where !hashes.contains(hash) { hashes.append(hash) }
        guard !hashes.isEmpty else { return nil }
        let options = client.peerOptions[TrustKitLessonOptions.self]
        let policy = TrustKitDomainPolicy(
            publicKeyHashes: hashes.count == 1 && options.enforcePinning ? hashes + [Self.backupPin] : hashes,
            enforcePinning: options.enforcePinning, expirationDate: options.expirationDate)
        do {
            return try TrustKitConfiguration(pinnedDomains: [server.host: policy])
        } catch {
            throw ScenarioError(file: file, path: "client.trustKit", reason: error.description)
        }
    }

    /// A backup pin that matches no key (the SHA-256 of the words below): what the lesson's one pin needs beside
    /// it for TrustKit to accept the configuration, as an app would list its next key.
    static let backupPin = Data(OpenSSL.sha256(Array("mitmsim backup pin: a key the bank has not used yet".utf8))).base64EncodedString()
}
