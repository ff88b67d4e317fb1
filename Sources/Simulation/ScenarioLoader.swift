import Foundation
import PKI
import Yams

/// Reads scenario files: YAML in, a checked `Scenario` or a `ScenarioError` out.
public enum ScenarioLoader {
    /// Loads one file; the id is its name without `.yaml`.
    public static func load(_ path: String) throws -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScenarioError(file: path, path: "", reason: FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        return try decode(data, file: path, id: URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent)
    }

    /// Every `*.yaml` in `directory`, sorted by file name (the catalog order).
    public static func loadAll(in directory: String) throws -> [Scenario] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw ScenarioError(file: directory, path: "", reason: "no such directory")
        }
        return try names.filter { $0.hasSuffix(".yaml") }.sorted().map { try load(directory + "/" + $0) }
    }

    /// Decodes and checks one scenario's YAML; `file` is how errors name it, `id` becomes its id.
    static func decode(_ data: Data, file: String, id: String) throws -> Scenario {
        var scenario: Scenario
        do {
            scenario = try YAMLDecoder().decode(Scenario.self, from: data)
        } catch let error as DecodingError {
            throw describe(error, file: file)
        } catch {
            throw ScenarioError(file: file, path: "", reason: "not valid YAML: " + "\(error)".split(separator: "\n").joined(separator: " "))
        }
        scenario.id = id
        scenario.file = file
        try checkReferences(scenario, file: file)
        return scenario
    }

    // MARK: - Errors with key paths

    static func describe(_ error: DecodingError, file: String) -> ScenarioError {
        func path(_ keys: [CodingKey]) -> String {
            keys.reduce("") { path, key in key.intValue.map { "\(path)[\($0)]" } ?? (path.isEmpty ? key.stringValue : "\(path).\(key.stringValue)") }
        }
        switch error {
        case .keyNotFound(let key, let context):
            return ScenarioError(file: file, path: path(context.codingPath + [key]), reason: "missing")
        case .typeMismatch(let type, let context):
            return ScenarioError(file: file, path: path(context.codingPath), reason: "expected \(name(of: type))")
        case .valueNotFound(let type, let context):
            return ScenarioError(file: file, path: path(context.codingPath), reason: "expected \(name(of: type)), found nothing")
        case .dataCorrupted(let context):
            let reason = context.debugDescription.split(separator: "\n").joined(separator: " ")
            return ScenarioError(file: file, path: path(context.codingPath), reason: context.codingPath.isEmpty ? "not valid YAML: \(reason)" : reason)
        @unknown default:
            return ScenarioError(file: file, path: "", reason: "\(error)")
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "true or false"
        case is Int.Type: "a whole number"
        case is String.Type: "a string"
        case is [String].Type: "a list of strings"
        default: "a mapping (\(type))"
        }
    }

    // MARK: - References between ids

    /// Every id a scenario mentions must exist, and issuers must not loop.
    static func checkReferences(_ scenario: Scenario, file: String) throws {
        func fail(_ path: String, _ reason: String) -> ScenarioError { ScenarioError(file: file, path: path, reason: reason) }
        let world = scenario.world
        let authorities = Set(world.authorities.map(\.id))
        let leaves = Set(world.leaves.map(\.id))
        var seen = Set<String>()
        for (index, id) in (world.authorities.map(\.id) + world.leaves.map(\.id) + (world.clientIdentity.map { [$0.id] } ?? [])).enumerated() {
            guard seen.insert(id).inserted else { throw fail("world", "the id '\(id)' is used twice (entry \(index + 1))") }
        }
        func authority(_ id: String?, _ path: String) throws {
            if let id, !authorities.contains(id) { throw fail(path, "no authority '\(id)' in world.authorities") }
        }
        func certificate(_ id: String, _ path: String) throws {
            guard authorities.contains(id) || leaves.contains(id) else { throw fail(path, "no certificate '\(id)' in world.authorities or world.leaves") }
        }
        for (index, spec) in world.authorities.enumerated() {
            try authority(spec.issuer, "world.authorities[\(index)].issuer")
            var chain: [String] = [spec.id]
            var next = spec.issuer
            while let issuer = next {
                guard !chain.contains(issuer) else {
                    throw fail("world.authorities[\(index)].issuer", "issuers loop: \((chain + [issuer]).joined(separator: " -> "))")
                }
                chain.append(issuer)
                next = world.authorities.first { $0.id == issuer }?.issuer
            }
        }
        for (index, spec) in world.leaves.enumerated() {
            if spec.issuer != "self" { try authority(spec.issuer, "world.leaves[\(index)].issuer") }
            if let other = spec.keyOf {
                guard leaves.contains(other), other != spec.id else { throw fail("world.leaves[\(index)].keyOf", "no other leaf '\(other)' in world.leaves") }
                guard world.leaves.first(where: { $0.id == other })?.keyOf == nil else {
                    throw fail("world.leaves[\(index)].keyOf", "'\(other)' borrows its key too; name the leaf that owns the key")
                }
            }
        }
        if let client = world.clientIdentity { try authority(client.issuer, "world.clientIdentity.issuer") }
        guard HostName.isValid(scenario.server.host) else { throw fail("server.host", "'\(scenario.server.host)' is not a host name or IP address") }
        guard leaves.contains(scenario.server.leaf) else { throw fail("server.leaf", "no leaf '\(scenario.server.leaf)' in world.leaves") }
        for (index, id) in scenario.server.chain.enumerated() { try certificate(id, "server.chain[\(index)]") }
        if scenario.server.requireClientCertificate, world.clientIdentity == nil {
            throw fail("server.requireClientCertificate", "needs world.clientIdentity (the certificate the app presents)")
        }
        let attacker = scenario.attacker
        switch attacker.attack {
        case .forge, .misissued:
            guard let id = attacker.authority else { throw fail("attacker.authority", "missing (\(attacker.attack.rawValue) needs the CA that signs)") }
            try authority(id, "attacker.authority")
        case .present:
            guard let id = attacker.leaf else { throw fail("attacker.leaf", "missing (present needs the leaf the attacker shows)") }
            guard leaves.contains(id) else { throw fail("attacker.leaf", "no leaf '\(id)' in world.leaves") }
            for (index, id) in attacker.chain.enumerated() { try certificate(id, "attacker.chain[\(index)]") }
        default:
            break
        }
        for (index, id) in scenario.client.policy.pinnedCertificates.enumerated() { try certificate(id, "client.policy.pinnedCertificates[\(index)]") }
    }
}
