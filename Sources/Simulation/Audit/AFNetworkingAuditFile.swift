import Foundation
import PKI
import Policies
import Yams

/// An app's AFNetworking setup, as `--afnetworking FILE` writes it in YAML: the release, the `AFSecurityPolicy`
/// properties under their Objective-C names, who answers the challenge, the pinned certificate files
/// (relative to the YAML file), and optionally the hosts the app talks to.
///
///     version: afnetworking-4
///     SSLPinningMode: publicKey
///     allowInvalidCertificates: false
///     validatesDomainName: true
///     pinnedCertificates: [certs/api.cer, certs/backup.cer]
///     domains: [api.example.com]
public struct AFNetworkingAuditFile: Sendable {
    public var version: AFNetworkingVersion
    public var pinningMode: SSLPinningMode
    public var allowInvalidCertificates: Bool
    public var validatesDomainName: Bool
    public var validatesCertificateChain: Bool
    /// Each pinned file's certificate, labelled by its path as written.
    public var pinnedCertificates: [Certificate]
    public var challengeHandler: ChallengeHandler
    /// The hosts the app's session manager talks to (may be empty).
    public var domains: [String]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case version
        case pinningMode = "SSLPinningMode"
        case allowInvalidCertificates, validatesDomainName, validatesCertificateChain, pinnedCertificates
        case challengeHandler, domains
    }

    /// Reads the file at `path`; any error is one line naming the file and the key (or line and column).
    public static func read(_ path: String) throws -> AFNetworkingAuditFile {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, limit: AuditLimits.configurationBytes, kind: "an AFNetworking audit file")
        } catch {
            throw ScenarioError(file: path, path: "", reason: error.reason)
        }
        return try read(bytes, file: path)
    }

    /// `bytes`, read from the file at `path`; pinned certificate files are relative to its directory.
    package static func read(_ bytes: [UInt8], file path: String) throws -> AFNetworkingAuditFile {
        let text = try ScenarioLoader.utf8(Data(bytes), file: path)
        let empty = ScenarioError(file: path, path: "", reason: "is empty; write at least `version: afnetworking-4`")
        // Aliases are refused before Yams follows any: the file is a handful of keys and needs none.
        let hasAlias: Bool? = try ScenarioLoader.compose(text.replacingOccurrences(of: "*", with: ScenarioLimits.aliasMarker), file: path) { shape in
            containsAlias(shape)
        }
        guard let hasAlias else { throw empty }
        if hasAlias { throw ScenarioError(file: path, path: "", reason: "uses a YAML alias (*name); an AFNetworking audit file is read without aliases") }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let decoded = try ScenarioLoader.compose(text, file: path) { root in
            do {
                return try YAMLDecoder().decode(Keys.self, from: root, userInfo: [.scenarioDirectory: directory]).value
            } catch let error as DecodingError {
                throw ScenarioLoader.describe(error, in: root, file: path)
            }
        }
        guard let decoded else { throw empty }
        return decoded
    }

    private static func containsAlias(_ node: Node) -> Bool {
        switch node {
        // Only a plain scalar can be an alias: a quoted '*.example.com' is text.
        case .scalar(let scalar): scalar.style == .plain && scalar.string.hasPrefix(ScenarioLimits.aliasMarker)
        case .sequence(let sequence): sequence.contains(where: containsAlias)
        case .mapping(let mapping): mapping.contains { containsAlias($0.key) || containsAlias($0.value) }
        case .alias: true
        }
    }

    /// The YAML mapping, with AFNetworking's defaults for the keys it leaves out.
    private struct Keys: Decodable {
        var value: AFNetworkingAuditFile

        init(from decoder: Decoder) throws {
            let container = try decoder.strictContainer(CodingKeys.self)
            let version = try container.decodeChoice(choices(AFNetworkingVersion.allCases), forKey: .version)
            let mode = try container.contains(.pinningMode) ? container.decodeChoice(choices(SSLPinningMode.allCases), forKey: .pinningMode) : .none
            func refuse(_ key: CodingKeys, _ why: String) -> DecodingError {
                .dataCorruptedError(forKey: key, in: container, debugDescription: "\(version.rawValue) has no \(key.stringValue) (\(why))")
            }
            if container.contains(.validatesDomainName), !version.hasValidatesDomainName {
                throw refuse(.validatesDomainName, "AFNetworking 2.1 added it")
            }
            if container.contains(.validatesCertificateChain), !version.hasValidatesCertificateChain {
                throw refuse(.validatesCertificateChain, version == .v2_0 ? "AFNetworking 2.1 added it" : "AFNetworking 2.6 removed it")
            }
            let directory = decoder.userInfo[.scenarioDirectory] as? String ?? ""
            let files = try container.decodeStrings(forKey: .pinnedCertificates)
            guard files.count <= ScenarioLimits.listedIDs else {
                throw DecodingError.dataCorruptedError(
                    forKey: .pinnedCertificates, in: container, debugDescription: "names \(files.count) files, the most is \(ScenarioLimits.listedIDs)")
            }
            let pinned = try files.enumerated().map { index, file in
                let path = file.hasPrefix("/") ? file : directory + "/" + file
                do {
                    let certificates = try Certificate.loadPinned(from: path)
                    guard certificates.count == 1, let certificate = certificates.first else {
                        throw DecodingError.dataCorrupted(
                            .init(
                                codingPath: container.codingPath + [CodingKeys.pinnedCertificates, AnyKey(intValue: index)],
                                debugDescription: "'\(file)' holds \(certificates.count) certificates; AFNetworking pins one per file"))
                    }
                    return certificate.relabeled(file)
                } catch let error as PKIError {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: container.codingPath + [CodingKeys.pinnedCertificates, AnyKey(intValue: index)], debugDescription: error.description))
                }
            }
            // The same certificate in two files is one certificate of the host's world.
            let different = Set(pinned.map(\.der)).count
            guard different <= AuditLimits.pinnedCertificates else {
                throw DecodingError.dataCorruptedError(
                    forKey: .pinnedCertificates, in: container,
                    debugDescription:
                        "holds \(different) different certificates, the most is \(AuditLimits.pinnedCertificates) (each may become a certificate of the host's "
                        + "generated world, beside a chain of up to \(AuditLimits.chainCertificates))")
            }
            let domains = try container.decodeStrings(forKey: .domains).map { $0.lowercased() }
            if let bad = domains.firstIndex(where: { !HostName.isValid($0) || $0.contains("*") || CertificateSpec.isIPAddress($0) }) {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: container.codingPath + [CodingKeys.domains, AnyKey(intValue: bad)],
                        debugDescription: CertificateSpec.isIPAddress(domains[bad])
                            ? ConfigurationError.ipAddressRefusal(domains[bad]) : "'\(domains[bad])' is not a host name (no scheme, port or wildcard)"))
            }
            value = AFNetworkingAuditFile(
                version: version, pinningMode: mode,
                allowInvalidCertificates: try container.decodeValueIfPresent(Bool.self, forKey: .allowInvalidCertificates) ?? false,
                validatesDomainName: try container.decodeValueIfPresent(Bool.self, forKey: .validatesDomainName)
                    ?? version.defaultValidatesDomainName(for: mode),
                validatesCertificateChain: try container.decodeValueIfPresent(Bool.self, forKey: .validatesCertificateChain) ?? true,
                pinnedCertificates: pinned,
                challengeHandler: try container.contains(.challengeHandler)
                    ? container.decodeChoice(choices(ChallengeHandler.allCases), forKey: .challengeHandler) : .afnetworking,
                domains: domains)
        }
    }
}
