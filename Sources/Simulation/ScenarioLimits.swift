import Foundation
import PKI
import Yams

/// What one scenario file may hold. Each limit bounds a cost (reading, following YAML aliases, generating
/// keys, issuing certificates), and each is far beyond any lesson: the largest built-in lesson is under
/// 3 KB with five certificates, one name each and no RSA key. `Docs/limits.md` lists them with the reasons.
public enum ScenarioLimits {
    /// Bytes in the file.
    public static let fileBytes = 64 << 10
    /// Values (every string, number, list and mapping) once every alias is replaced by what it names.
    public static let expandedValues = 10_000
    /// Bytes of text once every alias is replaced by what it names.
    public static let expandedTextBytes = 128 << 10
    /// Authorities, leaves and the client identity together.
    public static let certificates = 32
    /// Entries in `dnsNames` and `ipAddresses` together, per leaf (public CAs issue at most 100).
    public static let namesPerCertificate = 100
    /// Characters in one DNS name: the most DNS allows.
    public static let dnsNameLength = 253
    /// Characters in a common name, organization or authority name: the most X.509 allows.
    public static let subjectNameLength = 64
    /// Characters in an id (ids become file names in `pki export` and the lab's directory).
    public static let idLength = 64
    /// Ids in `server.chain`, `attacker.chain` or `client.policy.pinnedCertificates`.
    public static let listedIDs = 32
    /// RSA keys a world generates, counted in RSA-2048 keys: three of them, or one RSA-3072 key alone, which
    /// takes about as long to make as three RSA-2048 keys (a P-256 key takes microseconds and is not counted;
    /// an RSA-1024 key, quicker to make, counts as one).
    public static let rsaKeys = 3
    /// Bytes in an Info.plist (`client.infoPlist`); an app's is a few KB.
    public static let infoPlistBytes = 256 << 10
    /// How deep elements may nest in an XML Info.plist: Foundation's reader recurses once per level.
    public static let infoPlistDepth = 64
    /// Tries in `lesson.tries`: `run` runs the lesson once more for each, world and all.
    public static let tries = 8
    /// Keys in one try's `keys`: each is an edit worded and applied.
    public static let keysPerTry = 32
    /// Scenario files in one directory (`--scenarios DIR`).
    public static let filesPerDirectory = 256

    /// Throws at the first value of `scenario` over a limit, or an id that could not be a file name.
    static func check(_ scenario: Scenario, file: String) throws {
        func fail(_ path: String, _ reason: String) -> ScenarioError { ScenarioError(file: file, path: path, reason: reason) }
        let world = scenario.world
        let count = world.authorities.count + world.leaves.count + (world.clientIdentity == nil ? 0 : 1)
        guard count <= certificates else {
            throw fail("world", "holds \(count) certificates (authorities, leaves and the client identity), the most is \(certificates)")
        }
        func id(_ id: String, _ path: String) throws {
            let allowed = id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
            guard allowed, !id.isEmpty, !id.hasPrefix("."), id.count <= idLength else {
                throw fail(
                    path, "'\(id)' is not an id: 1 to \(idLength) letters, digits, '-', '_' or '.', not starting with '.' (it becomes a file name)")
            }
        }
        func subjectName(_ name: String?, _ path: String) throws {
            // OpenSSL counts characters, as X.509's upper bound does.
            guard let name, name.isEmpty || name.unicodeScalars.count > subjectNameLength else { return }
            throw fail(path, "expected 1 to \(subjectNameLength) characters (the most X.509 allows), found \(name.unicodeScalars.count)")
        }
        var rsa = 0
        func key(_ type: KeyType, _ path: String) throws {
            rsa += type == .rsa3072 ? rsaKeys : type == .p256 ? 0 : 1
            guard rsa <= rsaKeys else {
                throw fail(
                    path,
                    "one RSA key too many: a world may generate \(rsaKeys) rsa1024 or rsa2048 keys, or one rsa3072 key and no other RSA key (each takes "
                        + "tens to hundreds of milliseconds to make; p256 takes microseconds)")
            }
        }
        for (index, spec) in world.authorities.enumerated() {
            let path = "world.authorities[\(index)]"
            try id(spec.id, path + ".id")
            // A certificate read from a file makes no key and has no fields of the lesson's to check.
            guard spec.file == nil else { continue }
            try subjectName(spec.name, path + ".name")
            try key(spec.keyType, path + ".keyType")
        }
        for (index, spec) in world.leaves.enumerated() {
            let path = "world.leaves[\(index)]"
            try id(spec.id, path + ".id")
            guard spec.file == nil else { continue }
            try subjectName(spec.commonName, path + ".commonName")
            try subjectName(spec.organization, path + ".organization")
            guard spec.dnsNames.count + spec.ipAddresses.count <= namesPerCertificate else {
                throw fail(
                    path + ".dnsNames",
                    "holds \(spec.dnsNames.count + spec.ipAddresses.count) names (dnsNames and ipAddresses together), the most is \(namesPerCertificate)")
            }
            for (position, name) in spec.dnsNames.enumerated() {
                guard name.count <= dnsNameLength else {
                    throw fail("\(path).dnsNames[\(position)]", "has \(name.count) characters, the most a DNS name may have is \(dnsNameLength)")
                }
                guard CertificateSpec.isDNSName(name) else {
                    throw fail("\(path).dnsNames[\(position)]", "'\(name)' is not a DNS name (\(CertificateSpec.dnsNameCharacters))")
                }
            }
            for (position, address) in spec.ipAddresses.enumerated() where !CertificateSpec.isIPAddress(address) {
                throw fail("\(path).ipAddresses[\(position)]", "'\(address)' is not an IPv4 or IPv6 address")
            }
            if spec.keyOf == nil { try key(spec.keyType, path + ".keyType") }
        }
        if let client = world.clientIdentity {
            try id(client.id, "world.clientIdentity.id")
            try subjectName(client.name, "world.clientIdentity.name")
        }
        let lists = [
            ("server.chain", scenario.server.chain), ("attacker.chain", scenario.attacker.chain),
            ("client.policy.pinnedCertificates", scenario.client.policy.pinnedCertificates),
        ]
        for (path, ids) in lists where ids.count > listedIDs {
            throw fail(path, "names \(ids.count) certificates, the most is \(listedIDs)")
        }
        guard scenario.lesson.tries.count <= tries else {
            throw fail("lesson.tries", "holds \(scenario.lesson.tries.count) tries, the most is \(tries) (each is one more run)")
        }
        for (index, lessonTry) in scenario.lesson.tries.enumerated() where lessonTry.presses.count > keysPerTry {
            throw fail("lesson.tries[\(index)].keys", "names \(lessonTry.presses.count) keys, the most is \(keysPerTry)")
        }
    }

    // MARK: - Aliases

    /// Stands in for `*` while the file is measured: every alias becomes a plain string, so Yams can
    /// read the file without following any alias. A private-use character, so no lesson contains it.
    static let aliasMarker = "\u{E000}"

    /// Measures `shape`, the file read with every `*` replaced by `aliasMarker`, as it will be once Yams
    /// follows its aliases, and throws at the smallest part that is over a limit.
    ///
    /// Yams follows an alias by sharing the node it names, which costs nothing, but it hashes every
    /// mapping key, and a key that is an alias of an alias of ... can stand for billions of values: ten
    /// lines took 24 s before this check. Measured here on the file's own text, each anchored node once, the cost is linear.
    static func checkExpansion(of shape: Node, file: String) throws {
        var measure = Expansion(file: file)
        _ = try measure.size(of: shape, at: "")
    }

    private struct Expansion {
        struct Size {
            var values = 0, textBytes = 0

            // No overflow: every node over a limit is refused as soon as it is measured, so a sum is at
            // most the file's values times the limit.
            static func + (a: Size, b: Size) -> Size { Size(values: a.values + b.values, textBytes: a.textBytes + b.textBytes) }
        }

        let file: String
        /// The size each anchor stands for, as Yams sees it: the latest node with that name so far.
        var anchors: [String: Size] = [:]

        /// Walks in document order, the order in which Yams defines anchors and follows aliases.
        mutating func size(of node: Node, at path: String) throws -> Size {
            var size: Size
            switch node {
            case .scalar(let scalar):
                size = try alias(scalar, at: path) ?? Size(values: 1, textBytes: scalar.string.utf8.count)
            case .sequence(let sequence):
                size = Size(values: 1)
                for (index, element) in sequence.enumerated() { size = size + (try self.size(of: element, at: "\(path)[\(index)]")) }
            case .mapping(let mapping):
                size = Size(values: 1)
                for (key, value) in mapping {
                    let name = (key.scalar?.string ?? "?").replacingOccurrences(of: ScenarioLimits.aliasMarker, with: "*")
                    let child = path.isEmpty ? name : "\(path).\(name)"
                    size = size + (try self.size(of: key, at: child)) + (try self.size(of: value, at: child))
                }
            case .alias:
                size = Size(values: 1)
            }
            if let anchor = node.anchor { anchors[anchor.rawValue] = size }
            guard size.values <= ScenarioLimits.expandedValues, size.textBytes <= ScenarioLimits.expandedTextBytes else {
                let what =
                    size.values > ScenarioLimits.expandedValues
                    ? "more than \(ScenarioLimits.expandedValues) values" : "more than \(InputFile.size(ScenarioLimits.expandedTextBytes)) of text"
                throw ScenarioError(
                    file: file, path: path, reason: "holds \(what) once its aliases are followed, the most a scenario may (aliases repeat what they name)")
            }
            return size
        }

        /// The size an alias stands for, or nil for a string that is no alias.
        ///
        /// An alias reads back as a plain string of the marker and its name. Anything after the name
        /// (`*a:b` in a flow mapping, which Yams reads as a key and a value) is refused, so no alias hides
        /// inside a longer string.
        func alias(_ scalar: Node.Scalar, at path: String) throws -> Size? {
            guard scalar.style == .plain, scalar.string.hasPrefix(ScenarioLimits.aliasMarker) else { return nil }
            let name = scalar.string.dropFirst()
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                let position = scalar.mark.map { "line \($0.line), column \($0.column)" } ?? path
                throw ScenarioError(
                    file: file, path: position, reason: "not valid YAML: an alias (*name) must be followed by a space, a comma or a closing bracket")
            }
            return anchors[String(name)] ?? Size(values: 1)
        }
    }
}
