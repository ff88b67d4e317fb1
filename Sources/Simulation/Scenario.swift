import Foundation
import LoopbackTLS
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
        return server.versions.lowerBound < .tls12 || keys.contains(.rsa1024) || digests.contains(.sha1)
    }
}

/// A lesson's text in Markdown: what is shown before the class predicts the verdict, and what after.
public struct Lesson: Sendable, Decodable, Equatable {
    /// The situation and the question; it must not give away the verdict, the deciding step or the loot.
    public var story: String
    /// What the trace and the events show, and the takeaway, as the file writes it (`Scenario.revealText` adds
    /// the tries).
    public var reveal: String
    /// The keys the learner is invited to press after the reveal, each with the verdict that follows.
    public var tries: [LessonTry]

    enum CodingKeys: String, CodingKey, CaseIterable { case story, reveal, tries }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        story = try container.decodeValue(String.self, forKey: .story)
        reveal = try container.decodeValue(String.self, forKey: .reveal)
        tries = try container.decodeIfPresent([LessonTry].self, forKey: .tries) ?? []
    }
}

/// The certificates of a lesson: authorities (roots and intermediates), leaves, and a client identity.
public struct WorldSpec: Sendable, Decodable {
    public var authorities: [AuthoritySpec]
    public var leaves: [LeafSpec]
    public var clientIdentity: ClientIdentitySpec?

    enum CodingKeys: String, CodingKey, CaseIterable { case authorities, leaves, clientIdentity }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        authorities = try container.decode([AuthoritySpec].self, forKey: .authorities)
        leaves = try container.decode([LeafSpec].self, forKey: .leaves)
        clientIdentity = try container.decodeIfPresent(ClientIdentitySpec.self, forKey: .clientIdentity)
    }
}

public struct AuthoritySpec: Sendable, Decodable {
    public var id: String
    /// The common name; defaults to the id.
    public var name: String
    /// Nil for a root (self-signed); otherwise the authority that signs this intermediate.
    public var issuer: String?
    public var pathLength: Int?
    /// How the device trusts it, if at all: a root built into iOS, or one the user installed.
    public var deviceTrust: DeviceTrust?
    public var keyType: KeyType
    public var notBefore: Date?
    public var notAfter: Date?
    /// The digest its issuer signs it with (itself, for a root).
    public var signatureDigest: SignatureDigest

    /// An authority as a file would declare it, for worlds built in code (the matrix's attackers).
    public init(
        id: String, name: String? = nil, issuer: String? = nil, pathLength: Int? = nil, deviceTrust: DeviceTrust? = nil,
        keyType: KeyType = .p256, notBefore: Date? = nil, notAfter: Date? = nil, signatureDigest: SignatureDigest = .sha256
    ) {
        self.id = id
        self.name = name ?? id
        self.issuer = issuer
        self.pathLength = pathLength
        self.deviceTrust = deviceTrust
        self.keyType = keyType
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.signatureDigest = signatureDigest
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, name, issuer, pathLength, deviceTrust, keyType, notBefore, notAfter, signatureDigest
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        id = try container.decodeValue(String.self, forKey: .id)
        name = try container.decodeValueIfPresent(String.self, forKey: .name) ?? id
        issuer = try container.decodeValueIfPresent(String.self, forKey: .issuer)
        pathLength = try container.decodeValueIfPresent(Int.self, forKey: .pathLength)
        if let pathLength, pathLength < 0 {
            throw DecodingError.dataCorruptedError(
                forKey: .pathLength, in: container, debugDescription: "expected 0 or more (how many CAs may follow below this one), found \(pathLength)")
        }
        deviceTrust = try container.contains(.deviceTrust) ? container.decodeChoice(DeviceTrust.choices, forKey: .deviceTrust) : nil
        keyType = try container.contains(.keyType) ? container.decodeChoice(KeyType.choices, forKey: .keyType) : .p256
        notBefore = try container.decodeTimeIfPresent(forKey: .notBefore)
        notAfter = try container.decodeTimeIfPresent(forKey: .notAfter)
        signatureDigest = try container.contains(.signatureDigest) ? container.decodeChoice(SignatureDigest.choices, forKey: .signatureDigest) : .sha256
    }
}

/// How the device trusts an authority.
public enum DeviceTrust: String, Sendable, CaseIterable {
    /// A root built into iOS: a public CA.
    case system
    /// Installed with a configuration profile and fully trusted in Certificate Trust Settings (what an attacker talks a user into).
    case userInstalled
    /// Installed with a profile, but full trust never switched on: since iOS 10.3 it anchors no TLS chain.
    case userInstalledWithoutFullTrust

    static let choices = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })

    /// True when it may end a path: a system root or a fully trusted installed one.
    public var isAnchor: Bool { self != .userInstalledWithoutFullTrust }

    /// "installed and fully trusted": how change lines and traces name it.
    public var phrase: String {
        switch self {
        case .system: "a root built into iOS"
        case .userInstalled: "installed and fully trusted"
        case .userInstalledWithoutFullTrust: "installed without full trust"
        }
    }
}

public struct LeafSpec: Sendable, Decodable {
    public var id: String
    /// An authority id, or `self` for a self-signed certificate.
    public var issuer: String
    /// Defaults to the first DNS name.
    public var commonName: String?
    public var organization: String?
    /// The SAN DNS names: the only names host validation reads.
    public var dnsNames: [String]
    public var ipAddresses: [String]
    public var notBefore: Date?
    public var notAfter: Date?
    public var keyType: KeyType
    /// Reuse another leaf's key pair (a renewed or stale certificate with the same key).
    public var keyOf: String?
    /// False leaves basicConstraints, keyUsage and extendedKeyUsage out, as AFNetworking's self-signed fixtures are.
    public var extensions: Bool
    /// The digest its issuer signs it with (itself, for a self-signed leaf).
    public var signatureDigest: SignatureDigest

    /// A leaf as a file would declare it, for worlds built in code (the matrix's attackers).
    public init(
        id: String, issuer: String, commonName: String? = nil, organization: String? = nil, dnsNames: [String] = [],
        ipAddresses: [String] = [], notBefore: Date? = nil, notAfter: Date? = nil, keyType: KeyType = .p256, keyOf: String? = nil,
        extensions: Bool = true, signatureDigest: SignatureDigest = .sha256
    ) {
        self.id = id
        self.issuer = issuer
        self.commonName = commonName
        self.organization = organization
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.keyType = keyType
        self.keyOf = keyOf
        self.extensions = extensions
        self.signatureDigest = signatureDigest
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, issuer, commonName, organization, dnsNames, ipAddresses, notBefore, notAfter, keyType, keyOf, extensions, signatureDigest
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        id = try container.decodeValue(String.self, forKey: .id)
        issuer = try container.decodeValue(String.self, forKey: .issuer)
        commonName = try container.decodeValueIfPresent(String.self, forKey: .commonName)
        organization = try container.decodeValueIfPresent(String.self, forKey: .organization)
        dnsNames = try container.decodeStrings(forKey: .dnsNames)
        ipAddresses = try container.decodeStrings(forKey: .ipAddresses)
        notBefore = try container.decodeTimeIfPresent(forKey: .notBefore)
        notAfter = try container.decodeTimeIfPresent(forKey: .notAfter)
        keyType = try container.contains(.keyType) ? container.decodeChoice(KeyType.choices, forKey: .keyType) : .p256
        keyOf = try container.decodeValueIfPresent(String.self, forKey: .keyOf)
        extensions = try container.decodeValueIfPresent(Bool.self, forKey: .extensions) ?? true
        signatureDigest = try container.contains(.signatureDigest) ? container.decodeChoice(SignatureDigest.choices, forKey: .signatureDigest) : .sha256
    }
}

/// A client certificate for two-way TLS, shipped in the app as a password-protected `.p12`.
public struct ClientIdentitySpec: Sendable, Decodable {
    public var id: String
    public var issuer: String
    public var name: String
    public var password: String

    enum CodingKeys: String, CodingKey, CaseIterable { case id, issuer, name, password }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        id = try container.decodeValue(String.self, forKey: .id)
        issuer = try container.decodeValue(String.self, forKey: .issuer)
        name = try container.decodeValueIfPresent(String.self, forKey: .name) ?? id
        password = try container.decodeValue(String.self, forKey: .password)
    }
}

public struct ServerSpec: Sendable, Decodable {
    public var host: String
    /// The leaf the real server presents.
    public var leaf: String
    /// What it sends after the leaf (usually its intermediate).
    public var chain: [String]
    public var versions: ClosedRange<TLSVersion>
    /// Two-way TLS: the client must present the world's client identity.
    public var requireClientCertificate: Bool
    /// False: the server offers only cipher suites with RSA key exchange, which App Transport Security
    /// refuses (TLS 1.2 and an RSA leaf only; the loader checks both).
    public var forwardSecrecy: Bool

    enum CodingKeys: String, CodingKey, CaseIterable { case host, leaf, chain, tlsVersion, requireClientCertificate, forwardSecrecy }

    /// What `tlsVersion` may say: 1.0 and 1.1 only alone, for the lessons about servers ATS refuses.
    static let versionNames: [String: ClosedRange<TLSVersion>] = [
        "1.0": .tls10 ... .tls10, "1.1": .tls11 ... .tls11, "1.2": .tls12 ... .tls12, "1.3": .tls13 ... .tls13, "any": .tls12 ... .tls13,
    ]

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        host = try container.decodeValue(String.self, forKey: .host)
        leaf = try container.decodeValue(String.self, forKey: .leaf)
        chain = try container.decodeStrings(forKey: .chain)
        versions = try container.contains(.tlsVersion) ? container.decodeChoice(Self.versionNames, forKey: .tlsVersion) : .tls12 ... .tls13
        requireClientCertificate = try container.decodeValueIfPresent(Bool.self, forKey: .requireClientCertificate) ?? false
        forwardSecrecy = try container.decodeValueIfPresent(Bool.self, forKey: .forwardSecrecy) ?? true
        if !forwardSecrecy, versions != .tls12 ... .tls12 {
            throw DecodingError.dataCorruptedError(
                forKey: .forwardSecrecy, in: container,
                debugDescription:
                    "false needs tlsVersion \"1.2\" (every TLS 1.3 suite is forward-secret, and mitmsim offers RSA key exchange with TLS 1.2 only)")
        }
    }
}

/// An attack in the scenario's words (the `attacker` block), the one vocabulary every front end uses:
/// lessons, the console's `A` key, the matrix's columns and the lab. `none` means nobody is on the path.
public struct AttackSpec: Sendable, Decodable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case none, passthrough, forge, selfSigned, replayRealChain, misissued, stolenKey, present
    }

    public var attack: Kind = .none
    /// The CA that signs forgeries (`forge`) or mis-issues (`misissued`).
    public var authority: String?
    /// For `present`: the leaf the attacker shows (it holds its key) and what follows it.
    public var leaf: String?
    public var chain: [String] = []

    public init(_ attack: Kind = .none, authority: String? = nil, leaf: String? = nil, chain: [String] = []) {
        self.attack = attack
        self.authority = authority
        self.leaf = leaf
        self.chain = chain
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case attack, authority, leaf, chain }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        attack = try container.decodeChoice(Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0.rawValue, $0) }), forKey: .attack)
        authority = try container.decodeValueIfPresent(String.self, forKey: .authority)
        leaf = try container.decodeValueIfPresent(String.self, forKey: .leaf)
        chain = try container.decodeStrings(forKey: .chain)
    }
}

/// The request the app sends once it trusts the server; `secret` is what an attacker must not read.
public struct RequestSpec: Sendable {
    /// `https://` (TLS, the default) or `http://` (plain text, which App Transport Security refuses unless allowed).
    public enum Scheme: String, Sendable, CaseIterable {
        case https, http
    }

    public var scheme = Scheme.https
    public var method = "POST"
    /// The path (with its query, if any) the request names.
    public var path = "/login"
    public var body = "username=alice&password=hunter2"
    public var secret = "hunter2"

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable { case method, url, path, body, secret }

    /// The `request` mapping; `host` is `server.host`, the only host `request.url` may name.
    init(from decoder: Decoder, host: String) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        method = try container.decodeValueIfPresent(String.self, forKey: .method) ?? method
        if let url = try container.decodeValueIfPresent(String.self, forKey: .url) {
            guard !container.contains(.path) else {
                throw DecodingError.dataCorruptedError(forKey: .url, in: container, debugDescription: "give either request.url or request.path, not both")
            }
            (scheme, path) = try Self.parse(url, host: host, in: container)
        } else {
            path = try container.decodeValueIfPresent(String.self, forKey: .path) ?? path
        }
        body = try container.decodeValueIfPresent(String.self, forKey: .body) ?? body
        secret = try container.decodeValueIfPresent(String.self, forKey: .secret) ?? secret
        // Both go into the request line as they are: a line break there would start a header of its own.
        guard !method.isEmpty, method.unicodeScalars.allSatisfy({ $0.isASCII && Self.tokenCharacters.contains(Character($0)) }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .method, in: container,
                debugDescription: "'\(method)' is not an HTTP method: a method is letters, digits and !#$%&'*+-.^_`|~ (an RFC 9110 token), e.g. POST")
        }
        guard path.hasPrefix("/"), path.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw DecodingError.dataCorruptedError(
                forKey: container.contains(.url) ? .url : .path, in: container,
                debugDescription: "'\(path)' is not a path: it starts with / and holds no spaces or control characters (percent-encode them)")
        }
    }

    private static let tokenCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~")

    /// The scheme and the path (with any query) of `https://HOST/path` or `http://HOST/path`, where HOST is `host`.
    private static func parse(_ url: String, host: String, in container: KeyedDecodingContainer<CodingKeys>) throws -> (Scheme, String) {
        func refuse(_ reason: String) -> DecodingError { .dataCorruptedError(forKey: .url, in: container, debugDescription: "'\(url)' \(reason)") }
        guard let parts = URLComponents(string: url), let written = parts.scheme, let named = parts.host, !named.isEmpty else {
            throw refuse("is not a URL such as https://\(host)/login")
        }
        guard let scheme = Scheme(rawValue: written.lowercased()) else { throw refuse("is neither https:// nor http://") }
        guard parts.user == nil, parts.password == nil, parts.port == nil, parts.fragment == nil else {
            throw refuse(
                "has more than a scheme, a host, a path and a query (no user, port or fragment: the app reaches server.host on the port mitmsim gives it)")
        }
        // URLComponents keeps the brackets of an IPv6 address.
        let bare = named.hasPrefix("[") && named.hasSuffix("]") ? String(named.dropFirst().dropLast()) : named
        guard bare == host else { throw refuse("names the host '\(bare)', not server.host '\(host)' (the app sends its request to the server)") }
        let path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        return (scheme, path + (parts.percentEncodedQuery.map { "?" + $0 } ?? ""))
    }
}

/// What the run must show; each is checked and reported.
public struct Expectations: Sendable, Decodable {
    public var trusted: Bool
    public var decidingCheck: TraceStep.Check?
    public var attackerSawPlaintext: Bool
    public var serverReceivedRequest: Bool

    enum CodingKeys: String, CodingKey, CaseIterable { case trusted, decidingCheck, attackerSawPlaintext, serverReceivedRequest }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        trusted = try container.decodeValue(Bool.self, forKey: .trusted)
        decidingCheck =
            try container.contains(.decidingCheck)
            ? container.decodeChoice(TraceStep.Check.choices(for: decoder), forKey: .decidingCheck)
            : nil
        attackerSawPlaintext = try container.decodeValue(Bool.self, forKey: .attackerSawPlaintext)
        serverReceivedRequest = try container.decodeValue(Bool.self, forKey: .serverReceivedRequest)
    }
}

extension TraceStep.Check {
    /// The checks a `decidingCheck:` may name: those of the libraries the scenario is read with.
    static func choices(for decoder: Decoder) -> [String: Self] {
        (decoder.userInfo[.clientLibraries] as? ClientLibraries ?? .builtIn).checkChoices
    }
}

extension KeyType {
    static let choices = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}

extension SignatureDigest {
    static let choices: [String: SignatureDigest] = ["sha1": .sha1, "sha256": .sha256]
}
