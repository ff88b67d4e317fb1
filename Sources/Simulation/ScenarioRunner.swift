import Foundation
import LoopbackTLS
import PKI
import Policies

/// Runs a scenario for real: origin, attacker and client on 127.0.0.1, with the client model `client.library`
/// names as the client's judge (for an AFNetworking release the whole iOS client: ATS, the challenge handler,
/// AFSecurityPolicy).
public enum ScenarioRunner {
    /// One run. Pass a `world` already built for this scenario to skip generating its certificates.
    public static func run(_ scenario: Scenario, world: World? = nil, keyLog: KeyLog? = nil) throws -> RunReport {
        let world = try world ?? World(scenario)
        let log = EventLog()
        log.register(world.entries.map(\.certificate) + [world.client?.identity.certificate].compactMap { $0 })
        let app = try App(scenario, world)
        let configuration = originConfiguration(scenario, world)
        let weak = scenario.needsWeakCryptography
        let attack = try scenario.attacker.resolved(in: world, file: scenario.file)
        let origin = try OriginServer(configuration, log: log, keyLog: keyLog)
        defer { origin.stop() }
        let proxy = try attack.map {
            try InterceptingProxy(
                attack: $0, routes: [scenario.server.host: origin.port], log: log, factory: world.factory, keyLog: keyLog,
                allowsWeakCryptography: weak)
        }
        defer { proxy?.stop() }
        let client = try TLSClient(
            host: scenario.server.host, trustStore: world.deviceTrustStore, verifyDate: world.factory.now, platform: scenario.client.platform,
            identity: app.identity, allowsWeakCryptography: weak, keyLog: keyLog)
        let logged = world.logs.map(\.entries.count)
        let exchanged = exchange(scenario, app, client: client, port: proxy?.port ?? origin.port, log: log)
        proxy?.stop()
        origin.stop()
        return RunReport(
            scenario: scenario, model: app.model, exchanged, realChain: configuration.chain, events: log.events,
            attackerView: AttackerView(flow: proxy?.flows.first, secret: scenario.request.secret, waiting: proxy != nil),
            serverReceivedRequest: !origin.requestsReceived.isEmpty,
            transparencyMonitor: transparencyMonitor(world, since: logged, host: scenario.server.host))
    }

    /// What the bank's monitor of the CT logs reads after the run: the entries for `host` the logs took since `counts`
    /// (the attacker's, as the world's own leaves were logged before), by issuer; nil when there are none.
    static func transparencyMonitor(_ world: World, since counts: [Int], host: String) -> String? {
        let fresh = zip(world.logs, counts).flatMap { log, count in log.entries.dropFirst(count).map { (log: log.name, entry: $0) } }
            .filter { $0.entry.precertificate.dnsNames.contains(host) || $0.entry.precertificate.ipAddresses.contains(host) }
        guard !fresh.isEmpty else { return nil }
        let issuers = Array(Set(fresh.map(\.entry.issuer.label))).sorted().map { "'\($0)'" }.joined(separator: ", ")
        let logs = fresh.map { "'\($0.log)'" }
        return "CT monitor: \(logs.joined(separator: ", ")) now publish a '\(host)' certificate from \(issuers) that the bank never asked for."
    }

    /// The lesson, then each of its tries: the keys pressed on the lesson as written, and the result run for real.
    public static func runWithTries(_ scenario: Scenario, keyLog: KeyLog? = nil) throws -> RunReport {
        var report = try run(scenario, keyLog: keyLog)
        report.tries = try scenario.lesson.tries.map { lessonTry in
            try RunReport.TryResult(lessonTry, run(lessonTry.replay(on: scenario).scenario, keyLog: keyLog))
        }
        return report
    }

    /// The app as the scenario builds it: the model that judges, and what its `.p12` gave it for two-way TLS.
    struct App: Sendable {
        let model: any ClientModel
        /// The identity `SecPKCS12Import` returned in the app's `identityBlock` (nil for any other handler, without a
        /// `.p12`, with the wrong password, or for a peer library).
        let identity: Identity?
        /// What the client-certificate challenge adds to the trace when a server asks; nil for a peer library,
        /// which mitmsim does not give the app's `.p12` (its model judges the server's chain only).
        let identityStep: TraceStep?

        /// A peer library built elsewhere (an audit's configuration): it presents no client certificate.
        init(model: any ClientModel) {
            self.model = model
            (identity, identityStep) = (nil, nil)
        }

        init(_ scenario: Scenario, _ world: World) throws {
            model = try scenario.clientModel(in: world)
            guard scenario.client.library.afnetworking != nil else {
                (identity, identityStep) = (nil, nil)
                return
            }
            if let answer = IOSClient.clientCertificateAnswer(by: scenario.client.challengeHandler) {
                (identity, identityStep) = (nil, answer)
            } else if let shipped = world.client {
                (identity, identityStep) = IOSClient.importClientIdentity(
                    pkcs12: shipped.pkcs12, password: scenario.client.pkcs12Password ?? shipped.password, file: "\(shipped.id).p12")
            } else {
                (identity, identityStep) = (nil, IOSClient.noClientIdentity)
            }
        }
    }

    /// What one exchange showed the client: its evaluation (nil when the handshake ended before it judged); a
    /// `RunOutcome` adds what the attacker and the bank saw.
    struct Exchange: Sendable {
        var evaluation: PolicyEvaluation?
        /// The chain the client was shown, leaf first (empty without TLS).
        var presented: [Certificate] = []
        var handshakeCompleted = false
    }

    /// What the client's judge saw and decided.
    private struct Judged: Sendable {
        let evaluation: PolicyEvaluation
        let presented: [Certificate]
    }

    /// The app's request with `app` deciding (also what the matrix runs per cell): an `http://` request goes out in
    /// plain text unless the client's own rule refuses it before any connection (ATS for the iOS client, Android's
    /// cleartextTrafficPermitted for the Network Security Config; the other libraries have none); `https://` is
    /// judged in the handshake.
    static func exchange(_ scenario: Scenario, _ app: App, client: TLSClient, port: UInt16, log: EventLog) -> Exchange {
        let host = scenario.server.host
        let request = HTTPMessage.request(
            scenario.request.method, scenario.request.path, host: host, body: Array(scenario.request.body.utf8),
            contentType: scenario.request.body.isEmpty ? nil : "application/x-www-form-urlencoded")
        if scenario.request.scheme == .http {
            let load = app.model.evaluateLoad(scheme: scenario.request.scheme.rawValue, host: host)
            if let load, !load.isTrusted { return Exchange(evaluation: load) }
            let sent: TLSClient.Result<Judged> = client.exchangePlainHTTP(.direct(port: port), request: request, log: log)
            return Exchange(evaluation: load, handshakeCompleted: sent.handshakeCompleted)
        }
        let domain = scenario.client.passesDomain ? host : nil
        let result = client.exchange(.direct(port: port), request: request, log: log) { trust, negotiated in
            let evaluation = app.model.evaluate(PresentedConnection(serverTrust: trust, negotiated: negotiated, host: host, domain: domain))
            return .init(
                accept: evaluation.isTrusted, verdict: Judged(evaluation: evaluation, presented: trust.certificates), summary: evaluation.decision,
                refusesTheVersion: evaluation.rejection.map(versionRefusals.contains) ?? false)
        }
        let evaluation = result.verdict.map { verdict in
            guard result.certificateRequested, let step = app.identityStep else { return verdict.evaluation }
            return verdict.evaluation.appending(verdict.evaluation.isTrusted ? step : IOSClient.clientCertificateNeverAsked)
        }
        return Exchange(evaluation: evaluation, presented: result.verdict?.presented ?? [], handshakeCompleted: result.handshakeCompleted)
    }

    /// The rejections of the version the ServerHello chose (ATS's minimum, a peer's floor): the client refuses it with a
    /// `protocol_version` alert, as a client that never offered it does, not with `bad_certificate`.
    static let versionRefusals: Set<RejectionReason> = [.atsMinimumVersionViolation, .tlsVersionRefused]

    /// The real bank: plain HTTP for an `http://` request, otherwise the world's server with its TLS settings,
    /// and in two-way TLS the CA its client certificates must come from.
    static func originConfiguration(_ scenario: Scenario, _ world: World) -> OriginServer.Configuration {
        let bank = BankApp(host: world.server.host)
        guard scenario.request.scheme == .https else { return .plainHTTP(application: bank) }
        return OriginServer.Configuration(
            application: bank, identity: world.server.leaf.identity, chain: world.server.chain, versions: scenario.server.versions,
            clientAuthorities: scenario.server.requireClientCertificate ? world.client.map { [$0.issuer.certificate] } : nil,
            allowsWeakCryptography: scenario.needsWeakCryptography, forwardSecrecy: scenario.server.forwardSecrecy)
    }
}
