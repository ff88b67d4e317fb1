import Foundation
import LoopbackTLS
import PKI
import Policies

/// Runs a scenario for real: origin, attacker and client on 127.0.0.1, the policy as the client's judge.
public enum ScenarioRunner {
    /// One run. Pass a `world` already built for this scenario to skip generating its certificates.
    public static func run(_ scenario: Scenario, world: World? = nil, keyLog: KeyLog? = nil) throws -> RunReport {
        let world = try world ?? World(scenario)
        let log = EventLog()
        log.register(world.entries.map(\.certificate) + [world.client?.identity.certificate].compactMap { $0 })
        let configuration = originConfiguration(scenario, world)
        let policy = try securityPolicy(scenario, world)
        let attack = try scenario.attacker.resolved(in: world, file: scenario.file)
        let origin = try OriginServer(configuration, log: log, keyLog: keyLog)
        defer { origin.stop() }
        let proxy = try attack.map {
            try InterceptingProxy(attack: $0, routes: [scenario.server.host: origin.port], log: log, factory: world.factory, keyLog: keyLog)
        }
        defer { proxy?.stop() }
        let client = try TLSClient(
            host: scenario.server.host, trustStore: world.deviceTrustStore, verifyDate: world.factory.now, platform: scenario.client.platform,
            identity: world.client?.identity, keyLog: keyLog)
        let result = exchange(scenario, policy, client: client, port: proxy?.port ?? origin.port, log: log)
        proxy?.stop()
        origin.stop()
        return RunReport(
            scenario: scenario, evaluation: result.verdict?.evaluation, presentedChain: result.verdict?.presented ?? [],
            realChain: configuration.chain, events: log.events,
            attackerView: AttackerView(flow: proxy?.flows.first, secret: scenario.request.secret),
            serverReceivedRequest: !origin.requestsReceived.isEmpty, handshakeCompleted: result.handshakeCompleted)
    }

    /// What the client's judge saw and decided.
    struct Judged: Sendable {
        let evaluation: PolicyEvaluation
        let presented: [Certificate]
    }

    /// The client's exchange with `policy` as its judge (also what the matrix runs per cell).
    static func exchange(_ scenario: Scenario, _ policy: SecurityPolicy, client: TLSClient, port: UInt16, log: EventLog) -> TLSClient.Result<Judged> {
        let domain = scenario.client.passesDomain ? scenario.server.host : nil
        let request = HTTPMessage.request(
            scenario.request.method, scenario.request.path, host: scenario.server.host,
            body: Array(scenario.request.body.utf8),
            contentType: scenario.request.body.isEmpty ? nil : "application/x-www-form-urlencoded")
        return client.exchange(.direct(port: port), request: request, log: log) { trust, _ in
            let evaluation = policy.evaluate(serverTrust: trust, forDomain: domain)
            return .init(accept: evaluation.isTrusted, verdict: Judged(evaluation: evaluation, presented: trust.certificates), summary: evaluation.verdict)
        }
    }

    /// The real bank: the world's server, and in two-way TLS the CA its client certificates must come from.
    static func originConfiguration(_ scenario: Scenario, _ world: World) -> OriginServer.Configuration {
        OriginServer.Configuration(
            application: BankApp(host: world.server.host), identity: world.server.leaf.identity, chain: world.server.chain,
            versions: scenario.server.versions,
            clientAuthorities: scenario.server.requireClientCertificate ? world.client.map { [$0.issuer.certificate] } : nil)
    }

    /// AFSecurityPolicy as the scenario sets it, with its pinned certificates taken from the world.
    static func securityPolicy(_ scenario: Scenario, _ world: World) throws -> SecurityPolicy {
        let spec = scenario.client.policy
        return SecurityPolicy(
            version: scenario.client.library, SSLPinningMode: spec.pinningMode, allowInvalidCertificates: spec.allowInvalidCertificates,
            validatesDomainName: spec.validatesDomainName, validatesCertificateChain: spec.validatesCertificateChain,
            pinnedCertificates: Set(try world.certificates(spec.pinnedCertificates, file: scenario.file, path: "client.policy.pinnedCertificates")))
    }
}
