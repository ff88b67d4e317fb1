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
        if infoPlist != nil || afnetworking != nil { judges.append(iOSJudge) }
        if infoPlist?.value.trustKit != nil { throw Self.pending("trustkit", "TSKConfiguration in \(infoPlist?.file ?? "")") }
        if let nsc = networkSecurityConfig { throw Self.pending("android-nsc", nsc.file) }
        if let okHttp = okHttpPins { throw Self.pending("okhttp", okHttp.file) }
        return judges
    }

    private static func pending(_ model: String, _ input: String) -> AuditError {
        AuditError("\(input): judging it needs the \(model) client model, which arrives with the models branch (not in this build)")
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
                scenario.client.library = af.version
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
