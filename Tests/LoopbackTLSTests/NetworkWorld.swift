import Foundation
import LoopbackTLS
import PKI
import Policies

/// A bank, its CAs, an attacker and a client identity, for real exchanges on 127.0.0.1.
struct NetworkWorld: Sendable {
    static let shared = try! NetworkWorld()
    static let clock = ISO8601DateFormatter().date(from: "2026-06-01T00:00:00Z")!

    let factory = CertificateFactory(now: clock)
    let root: Identity, intermediate: Identity, leaf: Identity
    let attackerCA: Identity, trustedCA: Identity
    let clientCA: Identity, clientIdentity: Identity

    init() throws {
        let start = Self.clock.addingTimeInterval(-30 * 86_400)
        let end = Self.clock.addingTimeInterval(365 * 86_400)
        func authority(_ name: String) -> CertificateSpec { .authority(label: name, commonName: name, notBefore: start, notAfter: end) }
        root = try factory.makeIdentity(authority("Bank Root"))
        intermediate = try factory.makeIdentity(
            .authority(label: "Bank Intermediate", commonName: "Bank Intermediate", pathLength: 0, notBefore: start, notAfter: end), signedBy: root)
        leaf = try factory.makeIdentity(
            .serverLeaf(label: "bank.test", organization: "Example Bank", dnsNames: ["bank.test"], notBefore: start, notAfter: end), signedBy: intermediate)
        attackerCA = try factory.makeIdentity(authority("Attacker CA"))
        trustedCA = try factory.makeIdentity(authority("Public CA"))
        clientCA = try factory.makeIdentity(authority("Bank Client CA"))
        var clientSpec = CertificateSpec.serverLeaf(label: "app client", dnsNames: [], notBefore: start, notAfter: end)
        clientSpec.subject = DistinguishedName(commonName: "Mobile App")
        clientSpec.extendedKeyUsage = [.clientAuth]
        clientIdentity = try factory.makeIdentity(clientSpec, signedBy: clientCA)
    }

    var origin: OriginServer.Configuration {
        OriginServer.Configuration(application: TestApplication(), identity: leaf, chain: [leaf.certificate, intermediate.certificate])
    }

    static let login = HTTPMessage.request(
        "POST", "/login", host: "bank.test", body: Array("username=alice&password=hunter2".utf8),
        contentType: "application/x-www-form-urlencoded")
}

/// One run: an origin, optionally a proxy in front of it, and a client judging with `policy`.
struct Exchange {
    let log: EventLog
    let result: TLSClient.Result<PolicyEvaluation>
    let flows: [InterceptedFlow]
    let originRequests: [String]
    /// What the handshake had settled when the client's judge was called; nil when it never was.
    let negotiatedWhenJudged: NegotiatedTLS?
    /// The chain the client's judge was shown; empty when it never was.
    let judgedChain: [Certificate]

    var events: [NetworkEvent] { log.events }

    /// The client's "handshake complete: …" event, as version and suite.
    var clientCompletedHandshake: (version: String, cipher: String)? {
        events.lazy.compactMap { event in
            if case .handshakeCompleted(let version, let cipher) = event.kind, event.actor == .client { (version, cipher) } else { nil }
        }.first
    }

    /// - Parameter weakClient: the client and the proxy allow weak cryptography (TLS 1.0 and 1.1, RSA-1024, SHA-1).
    init(
        policy: SecurityPolicy = .defaultPolicy, attack: Attack? = nil, trusts extra: [Certificate] = [],
        origin configuration: OriginServer.Configuration = NetworkWorld.shared.origin,
        clientIdentity: Identity? = nil, viaConnect: Bool = false, weakClient: Bool = false, world: NetworkWorld = .shared
    ) throws {
        let log = EventLog()
        self.log = log
        let origin = try OriginServer(configuration, log: log)
        defer { origin.stop() }
        let proxy = try attack.map {
            try InterceptingProxy(attack: $0, routes: ["bank.test": origin.port], log: log, factory: world.factory, allowsWeakCryptography: weakClient)
        }
        defer { proxy?.stop() }
        let client = try TLSClient(
            host: "bank.test", trustStore: DeviceTrustStore(system: [world.root.certificate] + extra), verifyDate: NetworkWorld.clock,
            identity: clientIdentity, allowsWeakCryptography: weakClient)
        let route: TLSClient.Route = proxy.map { viaConnect ? .httpProxy(port: $0.port) : .direct(port: $0.port) } ?? .direct(port: origin.port)
        var negotiatedWhenJudged: NegotiatedTLS? = nil
        var judgedChain: [Certificate] = []
        result = client.exchange(route, request: NetworkWorld.login, log: log) { trust, negotiated in
            negotiatedWhenJudged = negotiated
            judgedChain = trust.certificates
            let evaluation = policy.evaluate(serverTrust: trust, forDomain: "bank.test")
            return .init(accept: evaluation.isTrusted, verdict: evaluation, summary: evaluation.verdict)
        }
        self.negotiatedWhenJudged = negotiatedWhenJudged
        self.judgedChain = judgedChain
        proxy?.stop()
        origin.stop()
        flows = proxy?.flows ?? []
        originRequests = origin.requestsReceived
    }
}

/// A stand-in web application: `GET /bytes/N` answers N bytes, anything else a page with a session token.
struct TestApplication: HTTPApplication {
    func respond(to request: HTTPMessage) -> HTTPMessage {
        if let target = request.requestTarget, target.path.hasPrefix("/bytes/"), let count = Int(target.path.dropFirst("/bytes/".count)) {
            return .response(200, "OK", body: [UInt8](repeating: UInt8(ascii: "x"), count: count), contentType: "application/octet-stream")
        }
        return .response(200, "OK", body: Array("<p>Session token: 0123</p>".utf8))
    }
}
