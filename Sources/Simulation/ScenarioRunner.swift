import Foundation
import LoopbackTLS
import PKI
import Policies

/// Runs a scenario for real: origin, attacker and client on 127.0.0.1, the policy as the client's judge.
public enum ScenarioRunner {
    /// One run. Pass a `world` already built for this scenario to skip generating its certificates.
    public static func run(_ scenario: Scenario, world: World? = nil, keyLog: KeyLog? = nil) throws -> RunReport {
        let world = try world ?? World(scenario.world, clock: scenario.clock)
        let log = EventLog()
        log.register(world.identities.map(\.identity.certificate) + [world.clientIdentity?.certificate].compactMap { $0 })
        let configuration = originConfiguration(scenario, world)
        let origin = try OriginServer(configuration, log: log, keyLog: keyLog)
        defer { origin.stop() }
        let proxy = try attack(scenario, world).map {
            try InterceptingProxy(attack: $0, routes: [scenario.server.host: origin.port], log: log, factory: world.factory, keyLog: keyLog)
        }
        defer { proxy?.stop() }
        let client = try TLSClient(host: scenario.server.host, trustStore: world.deviceTrustStore, verifyDate: scenario.clock,
                                   identity: world.clientIdentity, keyLog: keyLog)
        let result = exchange(scenario, world, client: client, port: proxy?.port ?? origin.port, log: log)
        proxy?.stop()
        origin.stop()
        return RunReport(scenario: scenario, evaluation: result.verdict?.evaluation, presentedChain: result.verdict?.presented ?? [],
                         realChain: configuration.chain, events: log.events,
                         attackerView: AttackerView(flow: proxy?.flows.first, secret: scenario.request.secret),
                         serverReceivedRequest: !origin.requestsReceived.isEmpty, handshakeCompleted: result.handshakeCompleted)
    }

    /// What the client's judge saw and decided.
    struct Judged: Sendable {
        let evaluation: PolicyEvaluation
        let presented: [Certificate]
    }

    /// The client's exchange with the policy as its judge (also what the matrix runs per cell).
    static func exchange(_ scenario: Scenario, _ world: World, client: TLSClient, port: UInt16, log: EventLog) -> TLSClient.Result<Judged> {
        let policy = securityPolicy(scenario.client.policy, world)
        let domain = scenario.client.passesDomain ? scenario.server.host : nil
        let request = HTTPMessage.request(scenario.request.method, scenario.request.path, host: scenario.server.host,
                                          body: Array(scenario.request.body.utf8),
                                          contentType: scenario.request.body.isEmpty ? nil : "application/x-www-form-urlencoded")
        return client.exchange(.direct(port: port), request: request, log: log) { trust in
            let evaluation = policy.evaluate(serverTrust: trust, forDomain: domain)
            return .init(accept: evaluation.isTrusted, verdict: Judged(evaluation: evaluation, presented: trust.certificates), summary: evaluation.verdict)
        }
    }

    static func originConfiguration(_ scenario: Scenario, _ world: World) -> OriginServer.Configuration {
        let leaf = world.identity(scenario.server.leaf)!
        return OriginServer.Configuration(
            application: BankApp(host: scenario.server.host), identity: leaf, chain: [leaf.certificate] + scenario.server.chain.compactMap { world.identity($0)?.certificate },
            versions: scenario.server.versions,
            clientAuthorities: scenario.server.requireClientCertificate ? world.clientIdentity.map { [issuer(of: $0, world)] } : nil)
    }

    private static func issuer(of identity: Identity, _ world: World) -> Certificate {
        world.identities.map(\.identity.certificate).first { identity.certificate.isSigned(by: $0) && $0.subject == identity.certificate.issuer }!
    }

    /// The network attack a scenario's attacker block describes; nil when nobody is on the path.
    static func attack(_ scenario: Scenario, _ world: World) -> Attack? {
        let spec = scenario.attacker
        switch spec.attack {
        case .none: return nil
        case .passthrough: return .passthrough
        case .forge: return .forge(authority: world.identity(spec.authority!)!)
        case .selfSigned: return .selfSigned
        case .replayRealChain: return .replayRealChain
        case .misissued: return .misissued(authority: world.identity(spec.authority!)!)
        case .stolenKey: return .stolenKey(world.identity(scenario.server.leaf)!.privateKey)
        case .present:
            let leaf = world.identity(spec.leaf!)!
            return .present(chain: [leaf.certificate] + spec.chain.compactMap { world.identity($0)?.certificate }, key: leaf.privateKey,
                            note: "a certificate the attacker holds the key for")
        }
    }

    static func securityPolicy(_ spec: PolicySpec, _ world: World) -> SecurityPolicy {
        SecurityPolicy(SSLPinningMode: spec.pinningMode, allowInvalidCertificates: spec.allowInvalidCertificates,
                       validatesDomainName: spec.validatesDomainName,
                       pinnedCertificates: Set(spec.pinnedCertificates.compactMap { world.identity($0)?.certificate }))
    }
}
