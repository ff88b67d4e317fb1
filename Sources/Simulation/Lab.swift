import Foundation
import LoopbackTLS
import PKI

/// A live bank and a live attacker (on 127.0.0.1 unless told otherwise) that real clients (curl, openssl,
/// Python, a browser) can be pointed at.
///
/// The world is built at the wall-clock time, so real clients, which check dates against today, accept
/// what they should. The proxy listens for transparent TLS, HTTP CONNECT (to the lesson's bank only) and
/// plain HTTP (its "Wi-Fi security profile" page) on one port.
public final class Lab: Sendable {
    /// One ready-to-paste command, with the AFSecurityPolicy setting it behaves like and what it shows.
    public struct Command: Sendable {
        public let title: String
        public let policy: String
        public let line: String
        public let expected: String
    }

    public let scenario: Scenario
    public let directory: String
    /// Where the bank and the attacker listen, and where the printed commands point.
    public let address: ListenAddress
    /// Everything written to `directory`: the PKI and `commands.txt`.
    public let files: [String]
    private let world: World
    /// What the attacker does to every connection: the lesson's attack when it decrypts, else a forgery.
    private let attack: AttackSpec
    private let origin: OriginServer
    private let proxy: InterceptingProxy
    private let flowLog = Locked<[Flow]>([])

    /// Every intercepted connection so far, oldest first.
    public var flows: [Flow] { flowLog.withLock { $0 } }

    public var originPort: UInt16 { origin.port }
    /// Requests that reached the bank ("POST /login").
    public var requestsReceived: [String] { origin.requestsReceived }
    public var proxyPort: UInt16 { proxy.port }

    /// Builds the world, writes its PKI to `directory`, and starts the origin and the proxy.
    /// - Parameter address: 127.0.0.1 unless a person asked for another (anyone who can reach it can connect).
    /// - Parameter onFlow: each intercepted connection, when it ends (the live log); also kept in `flows`.
    public init(
        _ scenario: Scenario, directory: String, address: ListenAddress = .loopback, port: UInt16 = 0, onFlow: @escaping @Sendable (Flow) -> Void
    ) throws {
        self.scenario = scenario
        self.directory = directory
        self.address = address
        world = try World(scenario, clock: Date())
        let commandsFile = directory + "/commands.txt"
        files = try PKIExport.write(world, to: directory) + [commandsFile]
        let log = EventLog()
        var bank = ScenarioRunner.originConfiguration(scenario, world)
        bank.closesAfterResponse = true  // real clients may read to the end of the stream
        origin = try OriginServer(bank, log: log, address: address)
        let attack = Lab.attack(for: scenario)
        self.attack = attack
        let secret = scenario.request.secret
        let flowLog = flowLog
        do {
            guard let staged = try attack.resolved(in: world, file: scenario.file) else { preconditionFailure("Lab.attack never returns none") }
            var offered: Certificate? = nil
            if let id = Self.attackerAuthorityID(attack) { offered = world[id]?.certificate }
            let site = ProfileSite(authority: offered, bankHost: scenario.server.host)
            proxy = try InterceptingProxy(
                attack: staged, routes: [scenario.server.host: origin.port], defaultHost: scenario.server.host, site: site, log: log,
                factory: world.factory, address: address, port: port,
                onFlowEnd: { intercepted in
                    let flow = Flow(intercepted, secret: secret)
                    flowLog.withLock { $0.append(flow) }
                    onFlow(flow)
                })
        } catch {
            origin.stop()
            throw error
        }
        let listing = commands.enumerated().map {
            "# \($0.offset + 1). \($0.element.title)\n# like \($0.element.policy); expect \($0.element.expected)\n\($0.element.line)\n"
        }
        do {
            try Data(listing.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: commandsFile), options: .atomic)
        } catch {
            stop()
            throw PKIError.cannotWrite(path: commandsFile, reason: "\(error.localizedDescription)")
        }
    }

    public func stop() {
        proxy.stop()
        origin.stop()
    }

    /// The lesson's attack when it decrypts; otherwise a forgery with a CA the device does not trust
    /// (the classic attacker), or a self-signed forgery when the world has no such CA.
    static func attack(for scenario: Scenario) -> AttackSpec {
        if ![.none, .passthrough].contains(scenario.attacker.attack) { return scenario.attacker }
        return AttackSpec.choices(in: scenario).first { $0.attack == .forge } ?? AttackSpec(.selfSigned)
    }

    // MARK: - Commands to paste

    /// The root the real chain ends at (the leaf itself when it signs itself), and the attacker's CA, as exported files.
    private var legitRoot: String { path((world.server.root ?? world.server.leaf).id) }
    private var attackerCA: String? { Self.attackerAuthorityID(attack).map(path) }

    /// The attacker's CA: the one it forges with, offered by its profile page; nil when it forges without one.
    static func attackerAuthorityID(_ attack: AttackSpec) -> String? { attack.attack == .forge ? attack.authority : nil }

    private func path(_ id: String) -> String { directory + "/" + id + ".pem" }

    public var commands: [Command] {
        let host = scenario.server.host
        let proxy = "\(address):\(proxyPort)"
        let body = scenario.request.body
        // A bank that requires a client certificate gets the app's (two-way TLS); the proxy never asks for it.
        let client = scenario.server.requireClientCertificate ? world.client.map { directory + "/" + $0.id } : nil
        let curlIdentity = client.map { " --cert \($0).pem --key \($0).key" } ?? ""
        let opensslIdentity = client.map { " -cert \($0).pem -key \($0).key" } ?? ""
        let pythonIdentity = client.map { "; context.load_cert_chain('\($0).pem', '\($0).key')" } ?? ""
        let login = "-d '\(body)' https://\(host)/login"
        let pin = world.server.leaf.certificate.publicKeyPin
        let python = { (context: String) in
            "python3 -c \"import ssl, urllib.request as u; context = \(context)\(pythonIdentity); "
                + "opener = u.build_opener(u.ProxyHandler({'https': 'http://\(proxy)'}), u.HTTPSHandler(context=context)); "
                + "print(opener.open('https://\(host)/login', data=b'\(body)').read().decode())\""
        }
        var commands = [
            Command(
                title: "curl through the attacker, trusting only the real root", policy: "defaultPolicy (pinning none, allowInvalidCertificates NO)",
                line: "curl\(curlIdentity) --proxy http://\(proxy) --cacert \(legitRoot) \(login)", expected: "refused: exit 60, nothing stolen"),
            Command(
                title: "curl -k through the attacker", policy: "allowInvalidCertificates YES, validatesDomainName NO",
                line: "curl -k\(curlIdentity) --proxy http://\(proxy) \(login)", expected: "accepted: this log shows the stolen password"),
            Command(
                title: "curl -k with the real leaf's key pinned", policy: "SSLPinningMode publicKey, pinned: the real leaf",
                line: "curl -k\(curlIdentity) --pinnedpubkey '\(pin)' --proxy http://\(proxy) \(login)",
                expected: "refused: exit 90 (the pin holds even with -k)"),
            Command(
                title: "curl straight to the bank", policy: "defaultPolicy, no attacker on the path",
                line:
                    "curl\(curlIdentity) --resolve \(host):\(originPort):\(address) --cacert \(legitRoot) -d '\(scenario.request.body)' https://\(host):\(originPort)/login",
                expected: "accepted: the real bank answers"),
            Command(
                title: "curl when the network routes \(host) to the attacker (transparent)", policy: "defaultPolicy",
                line:
                    "curl\(curlIdentity) --resolve \(host):\(proxyPort):\(address) --cacert \(legitRoot) -d '\(scenario.request.body)' https://\(host):\(proxyPort)/login",
                expected: "refused: exit 60"),
            Command(
                title: "openssl s_client against the attacker, trusting the real root", policy: "defaultPolicy",
                line:
                    "openssl s_client\(opensslIdentity) -connect \(proxy) -servername \(host) -verify_return_error -verify_hostname \(host) -CAfile \(legitRoot) </dev/null",
                expected: "verify error, handshake aborted"),
            Command(
                title: "Python urllib through the attacker, trusting the real root", policy: "defaultPolicy",
                line: python("ssl.create_default_context(cafile='\(legitRoot)')"), expected: "ssl.SSLCertVerificationError"),
            Command(
                title: "Python urllib with CERT_NONE", policy: "allowInvalidCertificates YES, validatesDomainName NO",
                line: python("ssl._create_unverified_context()"), expected: "accepted: this log shows the stolen password"),
        ]
        if let attackerCA {
            commands.insert(
                Command(
                    title: "openssl s_client trusting the attacker's CA (the user installed it)",
                    policy: "defaultPolicy with the attacker CA in the trust store",
                    line:
                        "openssl s_client\(opensslIdentity) -connect \(proxy) -servername \(host) -verify_return_error -verify_hostname \(host) -CAfile \(attackerCA) </dev/null",
                    expected: "Verify return code: 0 (ok)"), at: 6)
        }
        return commands
    }
}
