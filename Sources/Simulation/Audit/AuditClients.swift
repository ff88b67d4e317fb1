import Foundation
import PKI
import Policies

/// A client model an audit runs every attack against, configured from the audited files.
public struct AuditJudge: Sendable {
    /// How the report names it: "iOS app (afnetworking-4)".
    public let name: String
    /// The app that judges the connections to one host, built for that host's generated world.
    let app: @Sendable (Scenario, World, AuditWorld) throws -> ScenarioRunner.App

    init(name: String, app: @escaping @Sendable (Scenario, World, AuditWorld) throws -> ScenarioRunner.App) {
        self.name = name
        self.app = app
    }

    /// A judge whose model is built for each host from its generated world and the pins that apply to the host,
    /// placed in that world (`AuditPin.worldID` names the certificate each pin stands for).
    public init(name: String, model: @escaping @Sendable (World, [AuditPin]) throws -> any ClientModel) {
        self.init(name: name) { _, world, audited in ScenarioRunner.App(model: try model(world, audited.pins)) }
    }
}

extension AuditConfiguration {
    /// Who judges: the judges each library of `libraries` builds from the configuration files given, in the
    /// registry's order (`ClientLibrary.auditJudges`). A peer's judge is its `ClientModel` built from the parsed
    /// file, with the pins placed in the host's world by `AuditWorld.pins`.
    func judges() throws -> [AuditJudge] {
        try libraries.libraries.flatMap { try $0.auditJudges(self) }
    }

    /// Each pin as the generated world holds it: a pin placed on a generated certificate becomes that
    /// certificate's key hash; a pin that matches nothing given keeps the hash as written.
    private static func placed(_ pins: [AuditPin], in world: World) throws -> [String: String] {
        var hashes: [String: String] = [:]
        for pin in pins {
            hashes[pin.hash] = try pin.worldID.map { try world.entry($0, file: "audit", path: pin.source).certificate.publicKeySHA256Base64 } ?? pin.hash
        }
        return hashes
    }

    /// TrustKit from the Info.plist's `TSKConfiguration`, its pins placed in the host's world.
    var trustKitJudges: [AuditJudge] {
        guard let trustKit = infoPlist?.value.trustKit else { return [] }
        let file = infoPlist?.file ?? ""
        return [Self.trustKitJudge(trustKit, ats: infoPlist?.value.ats ?? AppTransportSecurity(), file: file)]
    }

    /// TrustKit in the app of `ats`, whose `NSPinnedDomains` every SSL policy of the app's process carries.
    private static func trustKitJudge(_ trustKit: TrustKitConfiguration.Plist, ats: AppTransportSecurity, file: String) -> AuditJudge {
        AuditJudge(name: "TrustKit (\(file))") { world, pins in
            let hashes = try placed(pins, in: world)
            let domains = trustKit.pinnedDomains.mapValues { entry in
                var placedEntry = entry
                placedEntry.publicKeyHashes = entry.publicKeyHashes.map { hashes[$0] ?? $0 }
                return placedEntry
            }
            let infoPlistPins = try InfoPlistPins(ats: placed(ats, pins: pins), in: world, file: file, path: "NSPinnedDomains")
            do throws(TrustKitConfigurationError) {
                return TrustKitClient(configuration: try TrustKitConfiguration(pinnedDomains: domains), infoPlistPins: infoPlistPins)
            } catch {
                throw AuditError("\(file): TSKConfiguration: \(error.description)")
            }
        }
    }

    /// Android's Network Security Config as the app at `--target-sdk` reads it (a release build: no debug overrides).
    var androidJudges: [AuditJudge] { networkSecurityConfig.map { [androidJudge($0)] } ?? [] }

    private func androidJudge(_ nsc: Source<NetworkSecurityConfig>) -> AuditJudge {
        AuditJudge(name: "Android Network Security Config (\(nsc.file), targetSdkVersion \(targetSDK))") { [targetSDK] world, pins in
            let hashes = try Self.placed(pins, in: world)
            func placing(_ written: NetworkSecurityConfig.DomainConfig) throws -> NetworkSecurityConfig.DomainConfig {
                var placed = written
                placed.pinSet = try written.pinSet.map { set in
                    .init(pins: try set.pins.map { try .init(base64: hashes[$0.digest] ?? $0.digest) }, expiration: set.expiration)
                }
                placed.domainConfigs = try written.domainConfigs.map(placing)
                return placed
            }
            var config = nsc.value
            config.domainConfigs = try config.domainConfigs.map(placing)
            config.debugOverrides = nil
            return AndroidNetworkSecurityClient(config: config, targetSdkVersion: targetSDK)
        }
    }

    /// OkHttp's `CertificatePinner` from the pins file, on Android's default trust at `--target-sdk`.
    var okHttpJudges: [AuditJudge] { okHttpPins.map { [okHttpJudge($0)] } ?? [] }

    private func okHttpJudge(_ okHttp: Source<[CertificatePinner.PinLine]>) -> AuditJudge {
        AuditJudge(name: "OkHttp CertificatePinner (\(okHttp.file))") { [targetSDK] world, audited in
            let hashes = try Self.placed(audited, in: world)
            let pins = try okHttp.value.map { try CertificatePinner.Pin(pattern: $0.pin.pattern, pin: "sha256/" + (hashes[$0.pin.hash] ?? $0.pin.hash)) }
            return OkHttpClient(
                certificatePinner: CertificatePinner(pins: pins), trustManager: .platformDefault(targetSdkVersion: targetSDK), targetSdkVersion: targetSDK)
        }
    }

    /// `NSPinnedDomains` with each digest placed in the host's world: a digest a pin placed on a generated
    /// certificate names that certificate; one that matches nothing keeps the digest as written.
    private static func placed(_ ats: AppTransportSecurity, pins: [AuditPin]) -> AppTransportSecurity {
        let places = Dictionary(pins.compactMap { pin in pin.worldID.map { (pin.hash, $0) } }, uniquingKeysWith: { first, _ in first })
        func place(_ identities: [AppTransportSecurity.PinnedIdentity]?) -> [AppTransportSecurity.PinnedIdentity]? {
            identities?.map { identity in
                guard case .spkiSHA256Base64(let hash) = identity, let id = places[hash] else { return identity }
                return .certificate(id)
            }
        }
        var placed = ats
        placed.pinnedDomains = ats.pinnedDomains.mapValues { entry in
            var entry = entry
            entry.caIdentities = place(entry.caIdentities)
            entry.leafIdentities = place(entry.leafIdentities)
            return entry
        }
        return placed
    }

    /// The iOS app, when the audit is given its AFNetworking setup or an Info.plist that does not configure
    /// TrustKit (an app whose Info.plist configures TrustKit answers its challenges with TrustKit: that judge stands for it).
    var iOSJudges: [AuditJudge] { afnetworking != nil || (infoPlist != nil && infoPlist?.value.trustKit == nil) ? [iOSJudge] : [] }

    /// The whole iOS client: ATS from the Info.plist (Apple's defaults without one) and, with `--afnetworking`,
    /// its release, `AFSecurityPolicy` and challenge handler; without it, URLSession's default handling.
    private var iOSJudge: AuditJudge {
        let ats = infoPlist?.value.ats ?? AppTransportSecurity()
        let af = afnetworking?.value
        return AuditJudge(name: af.map { "iOS app (\($0.version.rawValue))" } ?? "iOS app (URLSession default handling)") { scenario, world, audited in
            var scenario = scenario
            scenario.client.ats = Self.placed(ats, pins: audited.pins)
            if let af {
                scenario.client.library = .afnetworking(af.version)
                scenario.client.challengeHandler = af.challengeHandler
                scenario.client.policy = PolicySpec(
                    pinningMode: af.pinningMode, allowInvalidCertificates: af.allowInvalidCertificates, validatesDomainName: af.validatesDomainName,
                    pinnedCertificates: audited.pins.filter { $0.certificate != nil }.compactMap(\.worldID),
                    validatesCertificateChain: af.validatesCertificateChain)
            }
            return try ScenarioRunner.App(scenario, world)
        }
    }
}
