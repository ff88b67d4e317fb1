import Foundation
import LoopbackTLS
import PKI

/// A live bank and a live attacker on 127.0.0.1 that real clients (curl, openssl, Python) can be pointed at.
///
/// The world is built at the wall-clock time, so real clients, which check dates against today, accept
/// what they should. The proxy listens for both transparent TLS and HTTP CONNECT on one port.
public final class Lab: @unchecked Sendable {
    /// One ready-to-paste command, with the AFSecurityPolicy setting it behaves like and what it shows.
    public struct Command: Sendable {
        public let title: String
        public let policy: String
        public let line: String
        public let expected: String
    }

    public let scenario: Scenario
    public let directory: String
    /// Everything written to `directory`: the PKI and `commands.txt`.
    public private(set) var files: [String] = []
    private let world: World
    /// What the real bank sends, leaf first.
    private let servedChain: [Certificate]
    private let attack: Attack
    private let origin: OriginServer
    private let proxy: InterceptingProxy

    public var originPort: UInt16 { origin.port }
    /// Requests that reached the bank ("POST /login").
    public var requestsReceived: [String] { origin.requestsReceived }
    public var proxyPort: UInt16 { proxy.port }

    /// Builds the world, writes its PKI to `directory`, and starts the origin and the proxy.
    /// - Parameter onFlow: one line per intercepted connection, when it ends (the live log).
    public init(_ scenario: Scenario, directory: String, port: UInt16 = 0, onFlow: @escaping @Sendable (String) -> Void) throws {
        self.scenario = scenario
        self.directory = directory
        world = try World(scenario.world, clock: Date())
        files = try PKIExport.write(scenario, world: world, to: directory)
        let log = EventLog()
        let configuration = ScenarioRunner.originConfiguration(scenario, world)
        servedChain = configuration.chain
        origin = try OriginServer(configuration, log: log)
        attack = ScenarioRunner.attack(scenario, world).flatMap { $0.terminatesTLS ? $0 : nil } ?? Lab.defaultAttack(scenario, world)
        let secret = scenario.request.secret
        do {
            proxy = try InterceptingProxy(attack: attack, routes: [scenario.server.host: origin.port], log: log, factory: world.factory,
                                          port: port, onFlowEnd: { flow in onFlow(Lab.describe(flow, secret: secret)) })
        } catch {
            origin.stop()
            throw error
        }
        let listing = commands.enumerated().map { "# \($0.offset + 1). \($0.element.title)\n# like \($0.element.policy); expect \($0.element.expected)\n\($0.element.line)\n" }
        try Data(listing.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: directory + "/commands.txt"), options: .atomic)
        files.append(directory + "/commands.txt")
    }

    public func stop() {
        proxy.stop()
        origin.stop()
    }

    /// Forge with a CA the device does not trust: the classic attacker.
    private static func defaultAttack(_ scenario: Scenario, _ world: World) -> Attack {
        let chain = Set([scenario.server.leaf] + scenario.server.chain)
        let attacker = scenario.world.authorities.first { !$0.trustedByDevice && !chain.contains($0.id) }.flatMap { world.identity($0.id) }
        return attacker.map { .forge(authority: $0) } ?? .selfSigned
    }

    /// "bank.test: presented 'forged bank-leaf' -> 'attacker-ca'; the client ACCEPTED it; STOLEN password 'hunter2'; READ POST /login …".
    static func describe(_ flow: InterceptedFlow, secret: String) -> String {
        let host = flow.host ?? "(no server name)"
        guard !flow.presentedChain.isEmpty else {
            return flow.opaqueBytes.fromClient > 0
                ? "\(host): passed through, \(flow.opaqueBytes.fromClient + flow.opaqueBytes.fromOrigin) encrypted bytes, nothing read"
                : "\(host): connection ended before a certificate was presented"
        }
        var line = "\(host): presented \(flow.presentedChain.map { "'\($0)'" }.joined(separator: " -> ")); "
        guard flow.clientAccepted else { return line + "the client REFUSED it, nothing read" }
        guard flow.sawPlaintext else {
            // curl's --pinnedpubkey and a bare s_client decide after the handshake: nothing was sent.
            return line + "the client finished the handshake, then hung up without sending anything"
        }
        line += "the client ACCEPTED it"
        let request = String(decoding: flow.plaintextFromClient, as: UTF8.self)
        if !secret.isEmpty, request.contains(secret) { line += "; STOLEN password '\(secret)'" }
        let head = request.components(separatedBy: "\r\n")
        if let first = head.first, !first.isEmpty { line += "; READ \(first)" }
        if let agent = head.first(where: { $0.lowercased().hasPrefix("user-agent:") }) {
            line += " from \(agent.dropFirst("user-agent:".count).trimmingCharacters(in: .whitespaces))"
        }
        if let failure = flow.upstreamFailure { line += "; upstream failed: \(failure)" }
        return line
    }

    // MARK: - Commands to paste

    /// The device-trusted root the real chain ends at, and the attacker's CA, as exported files.
    private var legitRoot: String { path(world.deviceTrustStore.first { origin(chainEndsAt: $0) }.map { label($0) } ?? scenario.server.leaf) }
    private var attackerCA: String? {
        guard case .forge(let authority) = attack else { return nil }
        return path(label(authority.certificate))
    }

    private func origin(chainEndsAt root: Certificate) -> Bool {
        servedChain.last.map { $0 == root || $0.isSigned(by: root) } ?? false
    }

    private func label(_ certificate: Certificate) -> String {
        world.identities.first { $0.identity.certificate == certificate }?.id ?? certificate.label
    }

    private func path(_ id: String) -> String { directory + "/" + id + ".pem" }

    public var commands: [Command] {
        let host = scenario.server.host, proxy = "127.0.0.1:\(proxyPort)", body = scenario.request.body
        // A bank that requires a client certificate gets the app's (two-way TLS); the proxy never asks for it.
        let client = scenario.server.requireClientCertificate ? scenario.world.clientIdentity.map { directory + "/" + $0.id } : nil
        let curlIdentity = client.map { " --cert \($0).pem --key \($0).key" } ?? ""
        let opensslIdentity = client.map { " -cert \($0).pem -key \($0).key" } ?? ""
        let pythonIdentity = client.map { "; context.load_cert_chain('\($0).pem', '\($0).key')" } ?? ""
        let login = "-d '\(body)' https://\(host)/login"
        let pin = world.identity(scenario.server.leaf)!.certificate.publicKeyPin
        let python = { (context: String) in
            "python3 -c \"import ssl, urllib.request as u; context = \(context)\(pythonIdentity); "
                + "opener = u.build_opener(u.ProxyHandler({'https': 'http://\(proxy)'}), u.HTTPSHandler(context=context)); "
                + "print(opener.open('https://\(host)/login', data=b'\(body)').read().decode())\""
        }
        var commands = [
            Command(title: "curl through the attacker, trusting only the real root", policy: "defaultPolicy (pinning none, allowInvalidCertificates NO)",
                    line: "curl\(curlIdentity) --proxy http://\(proxy) --cacert \(legitRoot) \(login)", expected: "refused: exit 60, nothing stolen"),
            Command(title: "curl -k through the attacker", policy: "allowInvalidCertificates YES, validatesDomainName NO",
                    line: "curl -k\(curlIdentity) --proxy http://\(proxy) \(login)", expected: "accepted: this log shows the stolen password"),
            Command(title: "curl -k with the real leaf's key pinned", policy: "SSLPinningMode publicKey, pinned: the real leaf",
                    line: "curl -k\(curlIdentity) --pinnedpubkey '\(pin)' --proxy http://\(proxy) \(login)", expected: "refused: exit 90 (the pin holds even with -k)"),
            Command(title: "curl straight to the bank", policy: "defaultPolicy, no attacker on the path",
                    line: "curl\(curlIdentity) --resolve \(host):\(originPort):127.0.0.1 --cacert \(legitRoot) -d '\(scenario.request.body)' https://\(host):\(originPort)/login",
                    expected: "accepted: the real bank answers"),
            Command(title: "curl when the network routes \(host) to the attacker (transparent)", policy: "defaultPolicy",
                    line: "curl\(curlIdentity) --resolve \(host):\(proxyPort):127.0.0.1 --cacert \(legitRoot) -d '\(scenario.request.body)' https://\(host):\(proxyPort)/login",
                    expected: "refused: exit 60"),
            Command(title: "openssl s_client against the attacker, trusting the real root", policy: "defaultPolicy",
                    line: "openssl s_client\(opensslIdentity) -connect \(proxy) -servername \(host) -verify_return_error -verify_hostname \(host) -CAfile \(legitRoot) </dev/null",
                    expected: "verify error, handshake aborted"),
            Command(title: "Python urllib through the attacker, trusting the real root", policy: "defaultPolicy",
                    line: python("ssl.create_default_context(cafile='\(legitRoot)')"), expected: "ssl.SSLCertVerificationError"),
            Command(title: "Python urllib with CERT_NONE", policy: "allowInvalidCertificates YES, validatesDomainName NO",
                    line: python("ssl._create_unverified_context()"), expected: "accepted: this log shows the stolen password"),
        ]
        if let attackerCA {
            commands.insert(Command(title: "openssl s_client trusting the attacker's CA (the user installed it)", policy: "defaultPolicy with the attacker CA in the trust store",
                                    line: "openssl s_client\(opensslIdentity) -connect \(proxy) -servername \(host) -verify_return_error -verify_hostname \(host) -CAfile \(attackerCA) </dev/null",
                                    expected: "Verify return code: 0 (ok)"), at: 6)
        }
        return commands
    }
}
