import Foundation
import PKI
import Policies

/// A client model an audit runs every attack against, configured from the audited files.
struct AuditJudge: Sendable {
    /// How the report names it: "iOS app (afnetworking-4)".
    let name: String
    /// The app that judges the connections to one host, built for that host's generated world.
    let app: @Sendable (Scenario, World, AuditWorld) throws -> ScenarioRunner.App
}

extension AuditConfiguration {
    /// Who judges: one client model per kind of configuration given. THE place where a peer model joins the
    /// audit: each peer's case below becomes its `ClientModel` built from the parsed file, with the pins placed
    /// in the host's world by `AuditWorld.pins` (`worldID` names the generated certificate each pin stands for).
    func judges() throws -> [AuditJudge] {
        var judges: [AuditJudge] = []
        // An app whose Info.plist configures TrustKit answers its challenges with TrustKit: that judge stands for it.
        if afnetworking != nil || (infoPlist != nil && infoPlist?.value.trustKit == nil) { judges.append(iOSJudge) }
        if let trustKit = infoPlist?.value.trustKit { judges.append(Self.trustKitJudge(trustKit, file: infoPlist?.file ?? "")) }
        if let nsc = networkSecurityConfig { judges.append(androidJudge(nsc)) }
        if let okHttp = okHttpPins { judges.append(okHttpJudge(okHttp)) }
        return judges
    }

    /// Each pin as the generated world holds it: a pin placed on a generated certificate becomes that
    /// certificate's key hash; a pin that matches nothing given keeps the hash as written.
    private static func placed(_ audited: AuditWorld, in world: World) throws -> [String: String] {
        var hashes: [String: String] = [:]
        for pin in audited.pins {
            hashes[pin.hash] = try pin.worldID.map { try world.entry($0, file: "audit", path: pin.source).certificate.publicKeySHA256Base64 } ?? pin.hash
        }
        return hashes
    }

    /// TrustKit from the Info.plist's `TSKConfiguration`, its pins placed in the host's world.
    private static func trustKitJudge(_ trustKit: TrustKitConfiguration.Plist, file: String) -> AuditJudge {
        AuditJudge(name: "TrustKit (\(file))") { _, world, audited in
            let hashes = try placed(audited, in: world)
            let domains = trustKit.pinnedDomains.mapValues { entry in
                var placedEntry = entry
                placedEntry.publicKeyHashes = entry.publicKeyHashes.map { hashes[$0] ?? $0 }
                return placedEntry
            }
            do throws(TrustKitConfigurationError) {
                return ScenarioRunner.App(model: TrustKitClient(configuration: try TrustKitConfiguration(pinnedDomains: domains)))
            } catch {
                throw AuditError("\(file): TSKConfiguration: \(error.description)")
            }
        }
    }

    /// Android's Network Security Config as the app at `--target-sdk` reads it (a release build: no debug overrides).
    private func androidJudge(_ nsc: Source<NetworkSecurityConfig>) -> AuditJudge {
        AuditJudge(name: "Android Network Security Config (\(nsc.file), targetSdkVersion \(targetSDK))") { [targetSDK] _, world, audited in
            let hashes = try Self.placed(audited, in: world)
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
            return ScenarioRunner.App(model: AndroidNetworkSecurityClient(config: config, targetSdkVersion: targetSDK))
        }
    }

    /// OkHttp's `CertificatePinner` from the pins file, on Android's default trust at `--target-sdk`.
    private func okHttpJudge(_ okHttp: Source<[CertificatePinner.PinLine]>) -> AuditJudge {
        AuditJudge(name: "OkHttp CertificatePinner (\(okHttp.file))") { [targetSDK] _, world, audited in
            let hashes = try Self.placed(audited, in: world)
            let pins = try okHttp.value.map { try CertificatePinner.Pin(pattern: $0.pin.pattern, pin: "sha256/" + (hashes[$0.pin.hash] ?? $0.pin.hash)) }
            return ScenarioRunner.App(
                model: OkHttpClient(certificatePinner: CertificatePinner(pins: pins), trustManager: .platformDefault(targetSdkVersion: targetSDK)))
        }
    }

    /// The whole iOS client: ATS from the Info.plist (Apple's defaults without one) and, with `--afnetworking`,
    /// its release, `AFSecurityPolicy` and challenge handler; without it, URLSession's default handling.
    private var iOSJudge: AuditJudge {
        let ats = infoPlist?.value.ats ?? AppTransportSecurity()
        let af = afnetworking?.value
        return AuditJudge(name: af.map { "iOS app (\($0.version.rawValue))" } ?? "iOS app (URLSession default handling)") { scenario, world, audited in
            var scenario = scenario
            scenario.client.ats = ats
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
