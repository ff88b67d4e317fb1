import Foundation
import LoopbackTLS
import PKI
import Policies

/// The app: its AFNetworking release and `AFSecurityPolicy`, who answers the server-trust challenge, App
/// Transport Security as its Info.plist sets it, and the password it opens its client certificate with; or a
/// peer library (`okhttp`, `trustkit`, …) with the lesson's pins and the libraries' lesson options, which is all
/// a peer's client block may give.
public struct ClientSpec: Sendable, Decodable {
    /// The client model: an AFNetworking release whose `AFSecurityPolicy` the iOS client runs, or a peer library.
    public var library: ClientModelName
    /// The registry the lesson was read with (`ScenarioLoader`'s `libraries`): its names are the ones `library`
    /// and `clients:` may use, and it builds the model.
    public var libraries: ClientLibraries
    public var policy: PolicySpec
    /// The domain handed to the policy: the server's host unless the file says `domain: null`.
    public var passesDomain: Bool
    /// Whose trust rules the phone applies: iOS 16 and later unless a historical lesson says `ios13` or `ios12`.
    public var platform: Platform
    /// Who answers the server-trust challenge: AFNetworking's session manager unless the file says otherwise.
    public var challengeHandler: ChallengeHandler
    /// App Transport Security: the app's `NSAppTransportSecurity` keys, and whether it predates ATS.
    public var ats: AppTransportSecurity
    /// The Info.plist the ATS keys were read from, as `client.infoPlist` names it; nil when they come from `client.ats` or nowhere.
    public var infoPlist: String?
    /// The password the app passes to `SecPKCS12Import`; nil for the one the `.p12` was made with (`world.clientIdentity.password`).
    public var pkcs12Password: String?
    /// `client.trustKit`, `client.android`, …: the lesson options of the registry's libraries, what the peer models
    /// need beyond the pins.
    public var peerOptions = PeerOptions()

    /// The keys every lesson may give, and the iOS client's; each library's lesson options add theirs.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case library, platform, policy, domain, challengeHandler, ats, infoPlist, linkedBeforeIOS9, pkcs12Password
    }

    public init(from decoder: Decoder) throws {
        libraries = decoder.userInfo[.clientLibraries] as? ClientLibraries ?? .builtIn
        let options = libraries.lessonOptions
        let container = try decoder.strictContainer(CodingKeys.self, listing: options.map { $0.key })
        library = try container.decodeChoice(libraries.modelChoices, forKey: .library)
        let ownKeys = libraries.library(of: library)?.clientKeys ?? []
        if let key = CodingKeys.allCases.first(where: { ![.library, .policy].contains($0) && !ownKeys.contains($0.stringValue) && container.contains($0) }) {
            let given = ["library", "policy"] + options.map { $0.key }
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "\(library) has no \(key.stringValue) (it belongs to the iOS client of the afnetworking-… names; a peer library's client "
                    + "block gives \(given.dropLast().joined(separator: ", ")) and \(given.last ?? "") only)")
        }
        platform = try container.contains(.platform) ? container.decodeChoice(choices(Platform.iOS), forKey: .platform) : .iOS16
        guard container.contains(.policy) else {
            throw DecodingError.keyNotFound(CodingKeys.policy, .init(codingPath: container.codingPath, debugDescription: ""))
        }
        policy = try PolicySpec(from: container.superDecoder(forKey: .policy), library: library)
        passesDomain = try !(container.contains(.domain) && container.decodeNil(forKey: .domain))
        if container.contains(.domain), passesDomain {
            throw DecodingError.dataCorruptedError(
                forKey: .domain, in: container, debugDescription: "only `domain: null` may be written (the domain is otherwise the server's host)")
        }
        if !passesDomain, library == .afnetworking(.v2_0) {
            throw DecodingError.dataCorruptedError(
                forKey: .domain, in: container,
                debugDescription: "afnetworking-2.0 is handed no domain at all (its evaluateServerTrust: takes none; AFNetworking 2.1 added forDomain:)")
        }
        challengeHandler =
            try container.contains(.challengeHandler) ? container.decodeChoice(choices(ChallengeHandler.allCases), forKey: .challengeHandler) : .afnetworking
        if container.contains(.ats), container.contains(.infoPlist) {
            throw DecodingError.dataCorruptedError(
                forKey: .infoPlist, in: container, debugDescription: "give the ATS keys either under client.ats or in client.infoPlist, not both")
        }
        infoPlist = try container.decodeValueIfPresent(String.self, forKey: .infoPlist)
        if let infoPlist {
            guard let directory = decoder.userInfo[.scenarioDirectory] as? String else {
                throw DecodingError.dataCorruptedError(
                    forKey: .infoPlist, in: container,
                    debugDescription: "names a file next to the scenario, and this scenario is not read from a file (write the keys under client.ats instead)")
            }
            do {
                ats = try InfoPlist.appTransportSecurity(at: CertificateFile.path(infoPlist, in: directory))
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .infoPlist, in: container, debugDescription: error.description)
            }
        } else {
            ats = try container.decodeIfPresent(ATSKeys.self, forKey: .ats)?.value ?? AppTransportSecurity()
        }
        ats.linkedBeforeIOS9 = try container.decodeValueIfPresent(Bool.self, forKey: .linkedBeforeIOS9) ?? false
        pkcs12Password = try container.decodeValueIfPresent(String.self, forKey: .pkcs12Password)
        let keyed = try decoder.container(keyedBy: AnyKey.self)
        for type in options { try peerOptions.decode(type, from: keyed) }
    }
}

/// AFSecurityPolicy's settings, with pinned certificates named by world id. For a peer library only the pins
/// (`pinningMode`, `pinnedCertificates`) come from the file, and the rest hold AFNetworking 4's defaults,
/// where `compare`'s AFNetworking rows start from.
public struct PolicySpec: Sendable {
    public var pinningMode: SSLPinningMode
    public var allowInvalidCertificates: Bool
    public var validatesDomainName: Bool
    public var pinnedCertificates: [String]
    /// `validatesCertificateChain` (AFNetworking 2.1 to 2.5.4; YES by default): pinning must match every
    /// certificate of the chain, not just one. Stays YES for the releases without it.
    public var validatesCertificateChain: Bool

    public init(
        pinningMode: SSLPinningMode, allowInvalidCertificates: Bool, validatesDomainName: Bool, pinnedCertificates: [String],
        validatesCertificateChain: Bool = true
    ) {
        self.pinningMode = pinningMode
        self.allowInvalidCertificates = allowInvalidCertificates
        self.validatesDomainName = validatesDomainName
        self.pinnedCertificates = pinnedCertificates
        self.validatesCertificateChain = validatesCertificateChain
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case pinningMode, allowInvalidCertificates, validatesDomainName, validatesCertificateChain, pinnedCertificates
    }

    /// The `client.policy` mapping, with the defaults of `model` and only the properties it has (a peer library: the pins).
    init(from decoder: Decoder, library model: ClientModelName) throws {
        let library = model.afnetworking ?? .v4
        let missing =
            model.afnetworking == nil
            ? [.allowInvalidCertificates, .validatesDomainName, .validatesCertificateChain]
            : (library.hasValidatesDomainName ? [] : [CodingKeys.validatesDomainName])
                + (library.hasValidatesCertificateChain ? [] : [CodingKeys.validatesCertificateChain])
        let container = try decoder.strictContainer(CodingKeys.self, unlisted: missing)
        func refuse(_ key: CodingKeys, _ why: String) -> DecodingError {
            DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "\(model) has no \(key.stringValue) (\(why))")
        }
        if model.afnetworking == nil, let key = missing.first(where: container.contains) {
            throw refuse(key, "an AFSecurityPolicy property; a peer library takes the lesson's pins only: pinningMode and pinnedCertificates")
        }
        pinningMode = try container.contains(.pinningMode) ? container.decodeChoice(choices(SSLPinningMode.allCases), forKey: .pinningMode) : .none
        allowInvalidCertificates = try container.decodeValueIfPresent(Bool.self, forKey: .allowInvalidCertificates) ?? false
        if container.contains(.validatesDomainName), !library.hasValidatesDomainName {
            throw refuse(.validatesDomainName, "AFNetworking 2.1 added it, with evaluateServerTrust:forDomain:")
        }
        validatesDomainName =
            try container.decodeValueIfPresent(Bool.self, forKey: .validatesDomainName) ?? library.defaultValidatesDomainName(for: pinningMode)
        if container.contains(.validatesCertificateChain), !library.hasValidatesCertificateChain {
            throw refuse(.validatesCertificateChain, library == .v2_0 ? "AFNetworking 2.1 added it" : "AFNetworking 2.6 removed it")
        }
        validatesCertificateChain = try container.decodeValueIfPresent(Bool.self, forKey: .validatesCertificateChain) ?? true
        pinnedCertificates = try container.decodeStrings(forKey: .pinnedCertificates)
    }
}

/// The keys of `NSAppTransportSecurity`, as `client.ats` or an Info.plist writes them (Apple's names).
struct ATSKeys: Decodable {
    var value: AppTransportSecurity

    enum CodingKeys: String, CodingKey, CaseIterable {
        case allowsArbitraryLoads = "NSAllowsArbitraryLoads"
        case exceptionDomains = "NSExceptionDomains"
        case pinnedDomains = "NSPinnedDomains"
    }

    /// Apple's other keys at this level: refused by name, so a learner knows the key is real but not simulated.
    static let unmodelled: Set = ["NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsInWebContent", "NSAllowsLocalNetworking"]

    init(from decoder: Decoder) throws {
        let container = try modelledContainer(Self.unmodelled, CodingKeys.self, in: decoder)
        value = AppTransportSecurity(allowsArbitraryLoads: try container.decodeValueIfPresent(Bool.self, forKey: .allowsArbitraryLoads) ?? false)
        value.exceptionDomains = try Self.domains(ExceptionDomainKeys.self, forKey: .exceptionDomains, in: container).mapValues(\.value)
        value.pinnedDomains = try Self.domains(PinnedDomainKeys.self, forKey: .pinnedDomains, in: container).mapValues(\.value)
    }

    /// A dictionary of entries keyed by domain name (`NSExceptionDomains`, `NSPinnedDomains`), each name a bare lowercase domain.
    private static func domains<Entry: Decodable>(
        _ entry: Entry.Type, forKey key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>
    ) throws -> [String: Entry] {
        guard container.contains(key) else { return [:] }
        let domains = try container.nestedContainer(keyedBy: AnyKey.self, forKey: key)
        var entries: [String: Entry] = [:]
        for key in domains.allKeys {
            let name = key.stringValue
            guard HostName.isValid(name) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: domains,
                    debugDescription:
                        "'\(name)' is not a domain name (write the bare name: no scheme, port, path or wildcard; NSIncludesSubdomains covers subdomains)")
            }
            guard name == name.lowercased() else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: domains, debugDescription: "'\(name)' has capital letters; write the domain in lowercase")
            }
            entries[name] = try domains.decode(Entry.self, forKey: key)
        }
        return entries
    }
}

/// One entry of `NSPinnedDomains`. In an Info.plist each identity is Apple's dictionary with `SPKI-SHA256-BASE64`;
/// in `client.ats` it is the id of a world certificate, whose key is generated for each run.
struct PinnedDomainKeys: Decodable {
    var value: AppTransportSecurity.PinnedDomain

    enum CodingKeys: String, CodingKey, CaseIterable {
        case includesSubdomains = "NSIncludesSubdomains"
        case caIdentities = "NSPinnedCAIdentities"
        case leafIdentities = "NSPinnedLeafIdentities"
    }

    init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        func identities(_ key: CodingKeys) throws -> [AppTransportSecurity.PinnedIdentity]? {
            guard container.contains(key) else { return nil }
            if decoder.userInfo[.infoPlistIdentities] != nil { return try container.decode([PinnedIdentityKeys].self, forKey: key).map(\.value) }
            return try container.decodeStrings(forKey: key).map { .certificate($0) }
        }
        value = AppTransportSecurity.PinnedDomain(
            includesSubdomains: try container.decodeValueIfPresent(Bool.self, forKey: .includesSubdomains) ?? false,
            caIdentities: try identities(.caIdentities), leafIdentities: try identities(.leafIdentities))
        guard value.caIdentities != nil || value.leafIdentities != nil else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "pins nothing: Apple requires NSPinnedCAIdentities, NSPinnedLeafIdentities or both"))
        }
    }
}

/// One identity of an Info.plist's `NSPinnedCAIdentities` or `NSPinnedLeafIdentities`: `SPKI-SHA256-BASE64`.
struct PinnedIdentityKeys: Decodable {
    var value: AppTransportSecurity.PinnedIdentity

    enum CodingKeys: String, CodingKey, CaseIterable {
        case spkiSHA256Base64 = "SPKI-SHA256-BASE64"
    }

    init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        let base64 = try container.decodeValue(String.self, forKey: .spkiSHA256Base64)
        guard SPKIPin(base64: base64) != nil else {
            throw DecodingError.dataCorruptedError(
                forKey: .spkiSHA256Base64, in: container,
                debugDescription: "'\(base64)' is not the base64 of a 32-byte SHA-256 digest (of the certificate's DER SubjectPublicKeyInfo)")
        }
        value = .spkiSHA256Base64(base64)
    }
}

/// One entry of `NSExceptionDomains`, with Apple's defaults for the keys it leaves out.
struct ExceptionDomainKeys: Decodable {
    var value: AppTransportSecurity.ExceptionDomain

    enum CodingKeys: String, CodingKey, CaseIterable {
        case includesSubdomains = "NSIncludesSubdomains"
        case allowsInsecureHTTPLoads = "NSExceptionAllowsInsecureHTTPLoads"
        case minimumTLSVersion = "NSExceptionMinimumTLSVersion"
        case requiresForwardSecrecy = "NSExceptionRequiresForwardSecrecy"
    }

    static let unmodelled: Set = [
        "NSRequiresCertificateTransparency", "NSThirdPartyExceptionAllowsInsecureHTTPLoads", "NSThirdPartyExceptionMinimumTLSVersion",
        "NSThirdPartyExceptionRequiresForwardSecrecy",
    ]

    static let tlsVersions: [String: TLSVersion] = ["TLSv1.0": .tls10, "TLSv1.1": .tls11, "TLSv1.2": .tls12, "TLSv1.3": .tls13]

    init(from decoder: Decoder) throws {
        let container = try modelledContainer(Self.unmodelled, CodingKeys.self, in: decoder)
        value = AppTransportSecurity.ExceptionDomain(
            includesSubdomains: try container.decodeValueIfPresent(Bool.self, forKey: .includesSubdomains) ?? false,
            allowsInsecureHTTPLoads: try container.decodeValueIfPresent(Bool.self, forKey: .allowsInsecureHTTPLoads) ?? false,
            minimumTLSVersion: try container.contains(.minimumTLSVersion)
                ? container.decodeChoice(Self.tlsVersions, forKey: .minimumTLSVersion) : .tls12,
            requiresForwardSecrecy: try container.decodeValueIfPresent(Bool.self, forKey: .requiresForwardSecrecy) ?? true)
    }
}

/// The strict container of `Keys`, with Apple's ATS keys in `names`, which mitmsim knows of but does not simulate,
/// refused by name; or, when the decoder carries `UnmodelledATSKeys` (an audit), recorded there and passed over.
private func modelledContainer<Keys: CodingKey & CaseIterable>(
    _ names: Set<String>, _ modelled: Keys.Type, in decoder: Decoder
) throws -> KeyedDecodingContainer<Keys> {
    let present = try decoder.container(keyedBy: AnyKey.self).allKeys.filter { names.contains($0.stringValue) }
    if let collected = decoder.userInfo[.unmodelledATSKeys] as? UnmodelledATSKeys {
        let path = decoder.codingPath.map(\.stringValue)
        collected.keys.withLock { $0 += present.map { (path + [$0.stringValue]).joined(separator: ".") } }
        return try decoder.strictContainer(Keys.self, ignoring: names)
    }
    if let key = present.first {
        let known = Keys.allCases.map(\.stringValue)
        let list = known.dropLast().joined(separator: ", ") + (known.count > 1 ? " and " : "") + (known.last ?? "")
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath + [key], debugDescription: "\(key.stringValue) is an ATS key mitmsim does not model (it models \(list))"))
    }
    return try decoder.strictContainer(Keys.self)
}

/// Where an audit's decoder records the ATS keys it passed over, as key paths ("NSAppTransportSecurity.NSAllowsLocalNetworking").
final class UnmodelledATSKeys: Sendable {
    let keys = Locked<[String]>([])
}

/// A choice of every case of a string enum, by raw value.
func choices<T: RawRepresentable<String>>(_ cases: [T]) -> [String: T] {
    Dictionary(uniqueKeysWithValues: cases.map { ($0.rawValue, $0) })
}

extension CodingUserInfoKey {
    /// The directory of the scenario file being decoded: files it names (`client.infoPlist`) are read from
    /// there. Absent for a lesson built into mitmsim, which has no directory.
    // The initializer is failable by protocol only: it accepts every string.
    static let scenarioDirectory = CodingUserInfoKey(rawValue: "mitmsim.scenarioDirectory")!
    /// An `UnmodelledATSKeys` that collects the ATS keys mitmsim does not model instead of refusing them (an audit).
    // The initializer is failable by protocol only: it accepts every string.
    static let unmodelledATSKeys = CodingUserInfoKey(rawValue: "mitmsim.unmodelledATSKeys")!
    /// Present when the ATS keys come from an Info.plist: pinned identities are Apple's `SPKI-SHA256-BASE64`
    /// dictionaries there, and world certificate ids in `client.ats`.
    // The initializer is failable by protocol only: it accepts every string.
    static let infoPlistIdentities = CodingUserInfoKey(rawValue: "mitmsim.infoPlistIdentities")!
    /// The `ClientLibraries` a scenario is read with; `ClientLibraries.builtIn` when absent.
    // The initializer is failable by protocol only: it accepts every string.
    static let clientLibraries = CodingUserInfoKey(rawValue: "mitmsim.clientLibraries")!
}
