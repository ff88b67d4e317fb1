import Foundation
import PKI
import Yams

/// Reads scenario files: YAML in, a checked `Scenario` or a `ScenarioError` out.
public enum ScenarioLoader {
    /// Loads one file; the id is its name without `.yaml`. Its client models are those of `libraries`.
    public static func load(_ path: String, libraries: ClientLibraries = .builtIn) throws -> Scenario {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, limit: ScenarioLimits.fileBytes, kind: "a scenario file")
        } catch {
            throw ScenarioError(file: path, path: "", reason: error.reason)
        }
        let directory = path.range(of: "/", options: .backwards).map { String(path[..<$0.lowerBound]) }.map { $0.isEmpty ? "/" : $0 } ?? ""
        return try decode(
            Data(bytes), file: path, id: URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent, directory: directory, libraries: libraries)
    }

    /// Every `*.yaml` in `directory`, sorted by file name (the catalog order).
    public static func loadAll(in directory: String, libraries: ClientLibraries = .builtIn) throws -> [Scenario] {
        try files(in: directory).map { try load(directory + "/" + $0, libraries: libraries) }
    }

    /// The names of the `*.yaml` files in `directory`, sorted (the catalog order); none of them is read yet.
    static func files(in directory: String) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw ScenarioError(file: directory, path: "", reason: "no such directory")
        }
        guard isDirectory.boolValue, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw ScenarioError(file: directory, path: "", reason: isDirectory.boolValue ? "cannot be read" : "is a file, not a directory of scenario files")
        }
        let files = names.filter { $0.hasSuffix(".yaml") }.sorted()
        guard files.count <= ScenarioLimits.filesPerDirectory else {
            throw ScenarioError(
                file: directory, path: "",
                reason: "holds more than \(ScenarioLimits.filesPerDirectory) scenario files, the most mitmsim reads from one directory")
        }
        return files
    }

    /// Decodes and checks one scenario's YAML; `file` is how errors name it, `id` becomes its id.
    ///
    /// `directory` is where files the scenario names (`client.infoPlist`) are read from, relative to the
    /// working directory when empty; nil for a scenario that is no file (a lesson built into mitmsim), which may name none.
    /// `libraries` are the client models `client.library` and `clients:` may name, and the checks `decidingCheck:` may.
    public static func decode(
        _ data: Data, file: String, id: String, directory: String? = nil, libraries: ClientLibraries = .builtIn
    ) throws -> Scenario {
        func fail(_ path: String, _ reason: String) -> ScenarioError { ScenarioError(file: file, path: path, reason: reason) }
        guard data.count <= ScenarioLimits.fileBytes else {
            throw fail("", "is larger than \(InputFile.size(ScenarioLimits.fileBytes)), the most mitmsim reads from a scenario file")
        }
        let text = try utf8(data, file: file)
        let empty = fail("", "is empty; a scenario is a YAML mapping that starts with `version: 3`")
        // The file's shape is measured with every alias made a plain string, before Yams follows any.
        let measured: Void? = try compose(text.replacingOccurrences(of: "*", with: ScenarioLimits.aliasMarker), file: file) { shape in
            try ScenarioLimits.checkExpansion(of: shape, file: file)
        }
        guard measured != nil else { throw empty }
        let decoded = try compose(text, file: file) { root in
            do {
                var userInfo: [CodingUserInfoKey: Any] = [.clientLibraries: libraries]
                if let directory { userInfo[.scenarioDirectory] = directory }
                return try YAMLDecoder().decode(Scenario.self, from: root, userInfo: userInfo)
            } catch let error as DecodingError {
                throw describe(error, in: root, file: file)
            }
        }
        guard var scenario = decoded else { throw empty }
        scenario.id = id
        scenario.file = file
        try ScenarioLimits.check(scenario, file: file)
        try checkValidity(scenario, file: file)
        try checkReferences(scenario, file: file)
        return scenario
    }

    // MARK: - Text and YAML

    /// The file as text, or an error naming the line with the first byte that is not UTF-8.
    static func utf8(_ data: Data, file: String) throws -> String {
        // The standard library's check is fast; the scalar by scalar walk below only finds the line of a bad byte.
        if let text = String(validating: data, as: UTF8.self) { return text }
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = data.makeIterator()
        var offset = 0
        while case .valid(let scalar) = parser.parseScalar(from: &bytes) { offset += scalar.count }
        let line = data.prefix(offset).filter { $0 == 0x0A }.count + 1
        throw ScenarioError(file: file, path: "line \(line)", reason: "holds a byte that is not UTF-8 text (a scenario is a text file)")
    }

    /// Reads `text` into YAML nodes and runs `body` on the document (nil for a file with none) while the
    /// parser, which owns the anchors, is alive. A YAML syntax error names its line and column.
    static func compose<T>(_ text: String, file: String, _ body: (Node) throws -> T) throws -> T? {
        do {
            let parser = try Parser(yaml: text, resolver: .basic.appending(.merge))
            return try withExtendedLifetime(parser) { try parser.singleRoot().map(body) }
        } catch let error as YamlError {
            throw describe(error, text: text, file: file)
        }
    }

    static func describe(_ error: YamlError, text: String, file: String) -> ScenarioError {
        func at(_ mark: Mark) -> String { "line \(mark.line), column \(mark.column)" }
        func syntax(_ mark: Mark, _ problem: String, _ context: YamlError.Context?) -> ScenarioError {
            let within = context.map { " (\($0.text) that starts at \(at($0.mark)))" } ?? ""
            return ScenarioError(file: file, path: at(mark), reason: "not valid YAML: \(problem)\(within)")
        }
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _), .composer(let context, let problem, let mark, _):
            return syntax(mark, problem, context)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            let appear = duplicates.count == 1 ? "appears" : "appear"
            return ScenarioError(file: file, path: at(context.mark), reason: "\(keys) \(appear) twice in one mapping (each key may be given once)")
        case .reader(let problem, let offset, _, _):
            // Yams counts the offset in characters.
            let before = text.prefix(offset ?? 0)
            let line = before.filter(\.isNewline).count + 1
            let column = before.reversed().prefix { !$0.isNewline }.count + 1
            return ScenarioError(file: file, path: "line \(line), column \(column)", reason: "not valid YAML: \(problem)")
        default:
            return ScenarioError(file: file, path: "", reason: "not valid YAML: " + "\(error)".split(separator: "\n").joined(separator: " "))
        }
    }

    // MARK: - Errors with key paths

    /// The error as one line; `root` is the YAML it came from, to quote what stands where a value was
    /// expected (nil for a decoder with no YAML, such as an Info.plist's).
    static func describe(_ error: DecodingError, in root: Node?, file: String) -> ScenarioError {
        func path(_ keys: [CodingKey]) -> String {
            keys.reduce("") { path, key in key.intValue.map { "\(path)[\($0)]" } ?? (path.isEmpty ? key.stringValue : "\(path).\(key.stringValue)") }
        }
        func found(_ keys: [CodingKey]) -> String {
            root.flatMap { node(at: keys, in: $0) }.map { ", found \(description(of: $0))" } ?? ""
        }
        switch error {
        case .keyNotFound(let key, let context):
            return ScenarioError(file: file, path: path(context.codingPath + [key]), reason: "missing")
        case .typeMismatch(let type, let context):
            return ScenarioError(file: file, path: path(context.codingPath), reason: "expected \(name(of: type))\(found(context.codingPath))")
        case .valueNotFound(let type, let context):
            return ScenarioError(file: file, path: path(context.codingPath), reason: "expected \(name(of: type)), found nothing")
        case .dataCorrupted(let context):
            return ScenarioError(file: file, path: path(context.codingPath), reason: context.debugDescription.split(separator: "\n").joined(separator: " "))
        @unknown default:
            return ScenarioError(file: file, path: "", reason: "\(error)")
        }
    }

    /// How a message names the value of `type` that was expected, in a student's words (not Yams' node kinds).
    private static func name(of type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "true or false"
        case is Int.Type: "a whole number"
        case is String.Type: "a string"
        case is [String].Type: "a list of strings"
        case is Node.Scalar.Type: "a single value"
        case is Node.Sequence.Type: "a list"
        default: "a mapping"
        }
    }

    /// The node a decoding error's key path leads to, when the path is in the file as written.
    private static func node(at keys: [CodingKey], in root: Node) -> Node? {
        keys.reduce(Optional(root)) { node, key in
            switch (node, key.intValue) {
            case (.sequence(let sequence)?, let index?): sequence.indices.contains(index) ? sequence[index] : nil
            case (.mapping(let mapping)?, nil): mapping.first { $0.key.string == key.stringValue }?.value
            default: nil
            }
        }
    }

    private static func description(of node: Node) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar):
            guard !scalar.string.isEmpty else { return "nothing" }
            return scalar.string.count > 40 ? "'\(scalar.string.prefix(40))...'" : "'\(scalar.string)'"
        }
    }

    // MARK: - Values

    /// Every certificate that gives a date must start before it ends, at the scenario's clock (a date left
    /// out is taken from the clock).
    static func checkValidity(_ scenario: Scenario, file: String) throws {
        let (defaultStart, defaultEnd) = World.defaultValidity(at: scenario.clock)
        let time = ISO8601DateFormatter()
        func check(_ notBefore: Date?, _ notAfter: Date?, _ path: String) throws {
            switch (notBefore, notAfter) {
            case (let start?, let end?) where end <= start:
                throw ScenarioError(
                    file: file, path: "\(path).notAfter", reason: "\(time.string(from: end)) is not after notBefore (\(time.string(from: start)))")
            case (nil, let end?) where end <= defaultStart:
                throw ScenarioError(
                    file: file, path: "\(path).notAfter",
                    reason: "\(time.string(from: end)) is not after the notBefore the clock gives (\(time.string(from: defaultStart))); give notBefore too")
            case (let start?, nil) where start >= defaultEnd:
                throw ScenarioError(
                    file: file, path: "\(path).notBefore",
                    reason: "\(time.string(from: start)) is not before the notAfter the clock gives (\(time.string(from: defaultEnd))); give notAfter too")
            default:
                break
            }
        }
        for (index, spec) in scenario.world.authorities.enumerated() { try check(spec.notBefore, spec.notAfter, "world.authorities[\(index)]") }
        for (index, spec) in scenario.world.leaves.enumerated() { try check(spec.notBefore, spec.notAfter, "world.leaves[\(index)]") }
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
        var logIDs: Set<String> = []
        for (index, log) in (world.logs ?? []).enumerated() where !logIDs.insert(log.id).inserted {
            throw fail("world.logs[\(index)].id", "the log id '\(log.id)' is used twice")
        }
        for (index, spec) in world.authorities.enumerated() {
            for (position, id) in (spec.logsTo ?? []).enumerated() where !world.effectiveLogs.contains(where: { $0.id == id }) {
                let known = world.effectiveLogs.map { "'\($0.id)'" }.joined(separator: ", ")
                throw fail("world.authorities[\(index)].logsTo[\(position)]", "no log '\(id)' in world.logs (\(known.isEmpty ? "none" : known))")
            }
        }
        guard HostName.isValid(scenario.server.host) else { throw fail("server.host", "'\(scenario.server.host)' is not a host name or IP address") }
        guard leaves.contains(scenario.server.leaf) else { throw fail("server.leaf", "no leaf '\(scenario.server.leaf)' in world.leaves") }
        for (index, id) in scenario.server.chain.enumerated() { try certificate(id, "server.chain[\(index)]") }
        if scenario.server.requireClientCertificate, world.clientIdentity == nil {
            throw fail("server.requireClientCertificate", "needs world.clientIdentity (the certificate the app presents)")
        }
        if !scenario.server.forwardSecrecy {
            // A leaf with keyOf has the key of the leaf it names.
            let served = world.leaves.first { $0.id == scenario.server.leaf }
            let owner = served?.keyOf.flatMap { id in world.leaves.first { $0.id == id } } ?? served
            // A leaf read from a file has the file's key, whatever keyType says.
            if let owner, !(owner.file.map { $0.certificate.keyDescription.hasPrefix("RSA") } ?? (owner.keyType != .p256)) {
                let key = owner.file.map { "an \($0.certificate.keyDescription)" } ?? "a p256"
                throw fail(
                    "server.forwardSecrecy",
                    "false needs an RSA server leaf (RSA key exchange encrypts to the leaf's RSA key); '\(scenario.server.leaf)' has \(key) key")
            }
        }
        if scenario.client.pkcs12Password != nil, world.clientIdentity == nil {
            throw fail("client.pkcs12Password", "needs world.clientIdentity (the .p12 the app imports with this password)")
        }
        let attacker = scenario.attacker
        for (index, name) in attacker.hooks.enumerated() {
            let path = "attacker.hooks[\(index)]"
            guard scenario.client.libraries.hookChoices[name] != nil else { throw fail(path, "'\(name)' is not a runtime hook (\(scenario.hookNames))") }
            guard !attacker.hooks.prefix(index).contains(name) else { throw fail(path, "'\(name)' is named twice (each hook is applied once)") }
        }
        switch attacker.attack {
        case .forge, .misissued, .misissuedLogged:
            guard let id = attacker.authority else { throw fail("attacker.authority", "missing (\(attacker.attack.rawValue) needs the CA that signs)") }
            try authority(id, "attacker.authority")
            if attacker.attack == .misissuedLogged, world.root(of: id)?.deviceTrust != .system {
                throw fail(
                    "attacker.authority", "'\(id)' does not chain to a root built into iOS (deviceTrust: system), the only roots the world's CT logs accept")
            }
        case .present:
            guard let id = attacker.leaf else { throw fail("attacker.leaf", "missing (present needs the leaf the attacker shows)") }
            guard leaves.contains(id) else { throw fail("attacker.leaf", "no leaf '\(id)' in world.leaves") }
            for (index, id) in attacker.chain.enumerated() { try certificate(id, "attacker.chain[\(index)]") }
        default:
            break
        }
        for (index, id) in scenario.client.policy.pinnedCertificates.enumerated() {
            let path = "client.policy.pinnedCertificates[\(index)]"
            try certificate(id, path)
            let read = (world.authorities.first { $0.id == id }?.file ?? world.leaves.first { $0.id == id }?.file)
            if let read, read.isPEMNamedAsDER { throw fail(path, "'\(id)' is read from \(PKIError.pemInDERFile(path: read.file))") }
        }
        try checkPinnedDomains(scenario, certificate)
    }

    /// `NSPinnedDomains` in `client.ats`: every identity names a world certificate.
    private static func checkPinnedDomains(_ scenario: Scenario, _ certificate: (String, String) throws -> Void) throws {
        let pinned = scenario.client.ats.pinnedDomains
        for (domain, entry) in pinned.sorted(by: { $0.key < $1.key }) {
            for (key, identities) in [("NSPinnedCAIdentities", entry.caIdentities), ("NSPinnedLeafIdentities", entry.leafIdentities)] {
                for (index, id) in (identities ?? []).compactMap(\.certificateID).enumerated() {
                    try certificate(id, "client.ats.NSPinnedDomains.\(domain).\(key)[\(index)]")
                }
            }
        }
    }
}
