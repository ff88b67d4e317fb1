import Foundation
import PKI
import Policies
import Simulation

/// A client library that exists only in this test target: it pins one SPKI hash and checks nothing else (no
/// chain, no host name). It joins mitmsim through the registry alone, as a library from outside would.
struct SPKIPinClient: ClientModel {
    /// The pinned key's SHA-256, base64.
    let pin: String
    /// NO reports a mismatch and lets the connection through.
    let enforce: Bool

    func evaluate(_ connection: PresentedConnection) -> PolicyEvaluation {
        let leaf = connection.serverTrust.leaf
        guard leaf.publicKeySHA256Base64 != pin else {
            return PolicyEvaluation(
                steps: [TraceStep(.spkiPinMatch, .passed, "the leaf '\(leaf.label)' has the pinned key")], path: [leaf], rejection: nil)
        }
        let step = TraceStep(.spkiPinMatch, enforce ? .failed : .passed, "the leaf '\(leaf.label)' does not have the pinned key")
        return PolicyEvaluation(steps: [step], path: [leaf], rejection: enforce ? .spkiPinMismatch : nil)
    }
}

extension TraceStep.Check {
    /// The one check of `spki-pin`.
    static let spkiPinMatch = Self(rawValue: "spkiPinMatch")
}

extension RejectionReason {
    /// `spki-pin`'s one rejection.
    static let spkiPinMismatch = Self(code: "spkiPinMismatch")
}

extension ClientModelName {
    static let spkiPin = ClientModelName("spki-pin", displayName: "SPKI pin")
}

/// `client.spkiPin`: the library's own lesson option.
struct SPKIPinOptions: LessonOptions {
    static let key = "spkiPin"
    var enforce = true

    init() {}

    init(from decoder: Decoder) throws {
        enforce = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Bool.self, forKey: .enforce) ?? true
    }

    enum CodingKeys: String, CodingKey { case enforce }
}

enum SPKIPinLibrary {
    /// The library, described once: its model, its check, its option, how a lesson and an audit build it.
    static let library = ClientLibrary(
        name: "SPKI pin",
        models: [
            ClientLibrary.Model(.spkiPin) { scenario, world in
                let keys = try scenario.publicKeyPins(in: world)
                guard let key = keys.first, keys.count == 1 else {
                    throw ScenarioError(file: scenario.file, path: "client.policy.pinnedCertificates", reason: "spki-pin pins exactly one key")
                }
                return SPKIPinClient(pin: key.publicKeySHA256Base64, enforce: scenario.client.peerOptions[SPKIPinOptions.self].enforce)
            }
        ],
        checks: [.spkiPinMatch], lessonOptions: [SPKIPinOptions.self],
        auditJudges: { configuration in
            // It reads no file of its own: it pins the first pin the app's other configuration places on the host.
            guard configuration.okHttpPins != nil else { return [] }
            return [
                AuditJudge(name: "SPKI pin (the first pin)") { world, pins in
                    guard let id = pins.first?.worldID, let entry = world[id] else { throw AuditError("no pin placed on a certificate") }
                    return SPKIPinClient(pin: entry.certificate.publicKeySHA256Base64, enforce: true)
                }
            ]
        })

    /// mitmsim's libraries and this one.
    static let libraries = ClientLibraries.builtIn.adding(library)
}
