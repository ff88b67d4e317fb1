import Foundation
import PKI
import Policies

/// A lesson: a world of certificates, a server, an attacker, a client with its policy, a request, and
/// what the run should show. Scenarios are YAML files in `Scenarios/`; `Docs/scenario-format.md`
/// documents every key.
public struct Scenario: Sendable, Decodable {
    /// The file name without `.yaml`.
    public var id = ""
    /// Where it was read from, as errors name it.
    public var file = ""
    public var version: Int
    public var title: String
    public var group: String
    /// One line for lists.
    public var summary: String
    /// The lesson's text, in two parts so a class can predict before the answer is on screen.
    public var lesson: Lesson
    /// The simulated time: certificates are judged at this moment.
    public var clock: Date
    public var world: WorldSpec
    public var server: ServerSpec
    public var attacker: AttackSpec
    public var client: ClientSpec
    public var request: RequestSpec
    public var expect: Expectations
    /// The client models `compare` runs the attack against, in the file's order: the lesson's comparison set,
    /// for lessons about the comparison. Nil when the file gives none (every model of `client.libraries`).
    public var clients: [ClientModelName]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case version, title, group, summary, lesson, clock, world, server, attacker, client, request, expect, clients
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        version = try container.decodeValue(Int.self, forKey: .version)
        guard version == 3 else {
            let trust =
                "replace `trustedByDevice: true` with `deviceTrust: system` (a root built into iOS) or `deviceTrust: userInstalled` "
                + "(a profile the user installed and fully trusted)"
            let reason =
                switch version {
                case 1:
                    "version 1 is no longer read: write version 3, split `lesson` into `lesson.story` (before the reveal) and `lesson.reveal` "
                        + "(after it), and \(trust)"
                case 2: "version 2 is no longer read: write version 3, and \(trust)"
                default: "version \(version) is not supported (this mitmsim reads version 3)"
                }
            throw DecodingError.dataCorruptedError(forKey: .version, in: container, debugDescription: reason)
        }
        title = try container.decodeValue(String.self, forKey: .title)
        group = try container.decodeValue(String.self, forKey: .group)
        summary = try container.decodeValue(String.self, forKey: .summary)
        lesson = try container.decode(Lesson.self, forKey: .lesson)
        clock = try container.decodeTime(forKey: .clock)
        world = try container.decode(WorldSpec.self, forKey: .world)
        server = try container.decode(ServerSpec.self, forKey: .server)
        attacker = try container.decodeIfPresent(AttackSpec.self, forKey: .attacker) ?? AttackSpec()
        client = try container.decode(ClientSpec.self, forKey: .client)
        request = try container.contains(.request) ? RequestSpec(from: container.superDecoder(forKey: .request), host: server.host) : RequestSpec()
        expect = try container.decode(Expectations.self, forKey: .expect)
        clients = try container.contains(.clients) ? Self.decodeClients(container, libraries: client.libraries) : nil
    }

    /// `clients:`: at least one model name, each once.
    private static func decodeClients(_ container: KeyedDecodingContainer<CodingKeys>, libraries: ClientLibraries) throws -> [ClientModelName] {
        let names = try container.decodeStrings(forKey: .clients)
        guard !names.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: .clients, in: container, debugDescription: "is empty: name the client models to compare, or leave the key out for every one")
        }
        return try names.enumerated().map { index, name in
            func refuse(_ reason: String) -> DecodingError {
                .dataCorrupted(.init(codingPath: container.codingPath + [CodingKeys.clients, AnyKey(intValue: index)], debugDescription: reason))
            }
            guard let model = libraries.modelChoices[name] else { throw refuse("'\(name)' is not a client model (\(libraries.names))") }
            guard !names.prefix(index).contains(name) else { throw refuse("'\(name)' is named twice (each client is compared once)") }
            return model
        }
    }

    /// The client models `compare` runs: the file's `clients:`, or every model.
    public var comparedClients: [ClientModelName] { clients ?? client.libraries.modelNames }

    /// True when a run needs cryptography OpenSSL refuses by default: a server limited to TLS 1.0 or 1.1,
    /// or a certificate with an RSA-1024 key or a SHA-1 signature (the lessons about what ATS and iOS refuse).
    public var needsWeakCryptography: Bool {
        // A leaf with `keyOf` makes no key: the leaf it names is in the list with its own key type.
        let keys = world.authorities.map(\.keyType) + world.leaves.filter { $0.keyOf == nil }.map(\.keyType)
        let digests = world.authorities.map(\.signatureDigest) + world.leaves.map(\.signatureDigest)
        let read = (world.authorities.compactMap(\.file) + world.leaves.compactMap(\.file)).map(\.certificate)
        let weakRead = read.contains { !$0.keyIsAtLeast(rsa: 2048, ec: 0) || $0.signatureDigest == "SHA-1" }
        return server.versions.lowerBound < .tls12 || keys.contains(.rsa1024) || digests.contains(.sha1) || weakRead
    }
}
