import Foundation
import LoopbackTLS
import PKI

/// A live bank and a live attacker (on 127.0.0.1 unless told otherwise) that real clients (curl, openssl,
/// Python, a browser) can be pointed at.
///
/// The world is built at the wall-clock time, so real clients, which check dates against today, judge
/// what the lesson's dates say. The attacker always forges with the lab's own CA (`attackerCAID`), added
/// to the lesson's world and exported with it, whatever the lesson's own attacker does: so "the
/// attacker's CA" a command trusts is always the one that signs the forgeries; the lesson's own forging CA,
/// which nothing in the lab uses, is left out of the world and the directory. The proxy listens for
/// transparent TLS, HTTP CONNECT (to the lesson's bank only) and plain HTTP (its "Wi-Fi security profile"
/// page, which offers that CA) on one port; the trust check (`trustCheckURL`) on another.
///
/// A lab left running all day does not grow with the connections it sees: it keeps the latest
/// `FlowWindow.size` flows and as many of the bank's requests, no events, and nothing else of a connection
/// after it ends; what connections freed goes back to the system.
public final class Lab: Sendable {
    /// One ready-to-paste command: the AFSecurityPolicy setting it behaves like, what it shows, and that
    /// outcome in a form a test can check against the real client.
    public struct Command: Sendable {
        public let title: String
        public let policy: String
        public let line: String
        /// What the learner sees, in words: the verdict, the exit status and the client's message.
        public let expected: String
        public let outcome: Outcome
    }

    /// What a command does when pasted, as a machine can check it.
    public struct Outcome: Sendable, Equatable {
        /// The process's exit status.
        public let exitStatus: Int32
        /// Text its output (standard output and error together) contains.
        public let output: String
        /// Whether the attacker reads the lesson's secret from this command's request.
        public let attackerReadsSecret: Bool
    }

    /// The id of the lab's own attacker CA in its world and its files (`lab-attacker-ca.pem`).
    public static let attackerCAID = "lab-attacker-ca"

    public let scenario: Scenario
    public let directory: String
    /// Where the bank and the attacker listen, and where the printed commands point.
    public let address: ListenAddress
    /// Everything written to `directory`: the PKI and `commands.txt`.
    public let files: [String]
    /// What was taken from `directory` and what was made anew (nil with `fresh`: everything is new).
    public let reuse: World.Reuse?
    let world: World
    /// Held while the lab lives: no second lab can write to `directory` meanwhile.
    private let lock: LabDirectoryLock
    private let origin: OriginServer
    private let proxy: InterceptingProxy
    private let trustCheck: LabTrustCheck
    /// Set when the lesson's story is an attacker CA the user installed: its command reproduces the lesson with the lab's CA.
    let installedCAStory: InstalledCAStory?
    private let flowLog = Locked(FlowWindow())

    /// The latest intercepted connections, and how many there were in all.
    public var flowWindow: FlowWindow { flowLog.withLock { $0 } }
    /// The latest intercepted connections (at most `FlowWindow.size`), oldest first.
    public var flows: [Flow] { flowWindow.flows }

    public var originPort: UInt16 { origin.port }
    /// Requests that reached the bank ("POST /login"), the latest `FlowWindow.size`.
    public var requestsReceived: [String] { origin.requestsReceived }
    public var proxyPort: UInt16 { proxy.port }
    /// The page a device opens to see, and show the lab's log, whether it trusts the lab's CA yet.
    public var trustCheckURL: String { trustCheck.url }
    /// The trust check, in a sentence for the teacher's screen.
    public var trustCheckSentence: String {
        "Trust check: a device that opens \(trustCheckURL) sees whether it trusts the lab's CA (lab-attacker-ca) yet, and this log says so too."
    }
    /// The lab's attacker CA: what a device must trust for the forgeries to pass.
    public var attackerCA: Certificate { attackerAuthority.certificate }
    let attackerAuthority: Identity
    /// The chain the proxy presents for the lesson's host: a leaf with the real names, signed by the lab's
    /// CA, then that CA (made as the proxy makes it, so the commands' expectations judge what clients see).
    let forgery: [Certificate]

    /// Takes `directory` (refusing one a running lab holds), builds the world there, reusing the PKI a
    /// lab left in it when it still fits this lesson unless `fresh`, writes it, and starts the origin and the proxy.
    /// - Parameter address: 127.0.0.1 unless a person asked for another (anyone who can reach it can connect).
    /// - Parameter onFlow: each intercepted connection, when it ends (the live log); the latest are kept in `flowWindow`.
    /// - Parameter onNotice: each line for the log about connections the bank, the attacker or the trust check refused
    ///   or could not accept (see `noticeText`); the latest are kept in `flowWindow`.
    public init(
        _ scenario: Scenario, directory: String, address: ListenAddress = .loopback, port: UInt16 = 0, fresh: Bool = false,
        onFlow: @escaping @Sendable (Flow) -> Void, onNotice: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        self.scenario = scenario
        self.directory = directory
        self.address = address
        lock = try LabDirectoryLock(directory)
        let staged = Lab.stage(scenario)
        world = try World(staged, clock: Date(), reusing: fresh ? nil : directory)
        reuse = world.reuse
        attackerAuthority = try world.entry(Lab.attackerCAID, file: scenario.file, path: "attacker.authority").identity
        forgery = [
            try world.factory.forge(impersonating: world.server.leaf.certificate, signedBy: attackerAuthority).certificate, attackerAuthority.certificate,
        ]
        installedCAStory = try InstalledCAStory(scenario)
        let commandsFile = directory + "/commands.txt"
        files = try PKIExport.write(world, to: directory) + [commandsFile]
        // The screens show flows, never events: a log that keeps none does not grow with the connections.
        let log = EventLog(keepsEvents: false)
        let flowLog = flowLog
        let notice = { @Sendable (notice: String) in
            flowLog.withLock { $0.note(notice) }
            onNotice(notice)
        }
        var bank = ScenarioRunner.originConfiguration(staged, world)
        bank.closesAfterResponse = true  // real clients may read to the end of the stream
        bank.keptRequests = FlowWindow.size
        origin = try OriginServer(
            bank, log: log, address: address, limits: Lab.limits(exempting: address), onNotice: { notice(Lab.noticeText($0, server: "the bank")) })
        let secret = scenario.request.secret
        let memory = FreedMemory()
        let record = { @Sendable (flow: Flow) in
            flowLog.withLock { $0.append(flow) }
            onFlow(flow)
            memory.connectionEnded()
        }
        do {
            trustCheck = try LabTrustCheck(
                authority: attackerAuthority, factory: world.factory, address: address,
                onNotice: { notice(Lab.noticeText($0, server: "the trust check")) }, onCheck: record)
        } catch {
            origin.stop()
            throw error
        }
        do {
            let site = ProfileSite(authority: attackerAuthority.certificate, bankHost: scenario.server.host, trustCheckURL: trustCheck.url)
            proxy = try InterceptingProxy(
                attack: .forge(authority: attackerAuthority), routes: [scenario.server.host: origin.port], defaultHost: scenario.server.host,
                site: site, log: log, factory: world.factory, address: address, port: port, allowsWeakCryptography: staged.needsWeakCryptography,
                keepsFlows: false, onFlowEnd: { record(Flow($0, secret: secret)) }, limits: Lab.limits(exempting: nil),
                onNotice: { notice(Lab.noticeText($0, server: "the attacker")) })
        } catch {
            trustCheck.stop()
            origin.stop()
            throw error
        }
        let listing = commands.enumerated().map {
            "# \($0.offset + 1). \($0.element.title)\n# like \($0.element.policy); expect \($0.element.expected)\n\($0.element.line)\n"
        }
        do {
            try FileWriter.write([FileWriter.File("commands.txt", Array(listing.joined(separator: "\n").utf8), permissions: 0o644)], into: directory)
        } catch {
            stop()
            throw error
        }
    }

    public func stop() {
        proxy.stop()
        trustCheck.stop()
        origin.stop()
    }

    /// `scenario` with the lab's attacker CA added (not trusted by the device), as the matrix stages its own.
    /// The bank serves https:// with TLS 1.2 and 1.3 and forward-secret suites whatever the lesson's transport:
    /// the commands are real clients at their default settings, judging the lesson's certificates, and they
    /// speak neither plain HTTP to it nor TLS 1.0 or 1.1.
    static func stage(_ scenario: Scenario) -> Scenario {
        var staged = scenario
        if scenario.attacker.attack == .forge, let own = scenario.attacker.authority, !scenario.uses(own) {
            staged.world.authorities.removeAll { $0.id == own }
        }
        staged.world.authorities.append(AuthoritySpec(id: attackerCAID, name: "mitmsim lab attacker CA"))
        staged.request.scheme = .https
        staged.server.versions = .tls12 ... .tls13
        staged.server.forwardSecrecy = true
        return staged
    }

    /// "reused the PKI in mitmsim-lab (same CA and pins as before)", or what was made anew and why.
    public var pkiSummary: String {
        guard let reuse else { return "made a new PKI in \(directory) (--fresh)" }
        if reuse.remade.isEmpty { return "reused the PKI in \(directory): the same CA and pins as before" }
        if reuse.reused.isEmpty, reuse.remade.allSatisfy({ $0.reason.hasPrefix("none in") }) { return "made a new PKI in \(directory)" }
        let remade = reuse.remade.map { "\($0.id) (\($0.reason))" }.joined(separator: ", ")
        let kept = reuse.reused.isEmpty ? "" : "; kept " + reuse.reused.joined(separator: ", ")
        return "made anew in \(directory): \(remade)\(kept)"
    }

    // MARK: - Commands to paste

    /// Where the lab listens; every printed command takes its addresses from here.
    private var listenHost: String { "\(address)" }
    private var proxyAddress: String { "\(listenHost):\(proxyPort)" }

    /// A file of the lab's directory, quoted for the shell.
    private func path(_ id: String) -> String { Self.shellQuoted(directory + "/" + id + ".pem") }

    /// `text` as one shell word that means exactly `text`: as it is when it has nothing a shell reads, else in
    /// single quotes (a quote inside written '\''), so a lesson's body or a directory's name cannot run anything.
    static func shellQuoted(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "@%+=:,./_-".unicodeScalars.contains($0)) }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The commands, with outcomes judged anew on every read (about a dozen trust evaluations): read once.
    public var commands: [Command] {
        let host = scenario.server.host
        let expectations = LabExpectations(self)
        // The root the real chain ends at, or the leaf itself when it signs itself.
        let anchor = world.server.root ?? world.server.leaf
        let anchorWords = world.server.root == nil ? "the bank's self-signed certificate" : "the real root"
        let legitRoot = path(anchor.id)
        let body = scenario.request.body
        // A bank that requires a client certificate gets the app's (two-way TLS); the proxy never asks for it.
        let client = scenario.server.requireClientCertificate ? world.client.map { directory + "/" + $0.id } : nil
        let identity = client.map { (certificate: Self.shellQuoted($0 + ".pem"), key: Self.shellQuoted($0 + ".key")) }
        let curlIdentity = identity.map { " --cert \($0.certificate) --key \($0.key)" } ?? ""
        let opensslIdentity = identity.map { " -cert \($0.certificate) -key \($0.key)" } ?? ""
        let target = scenario.request.path
        let proxyAddress = proxyAddress
        let proxyURL = Self.shellQuoted("http://" + proxyAddress)
        let data = "-d " + Self.shellQuoted(body)
        let login = "\(data) " + Self.shellQuoted("https://\(host)\(target)")
        let pin = world.server.leaf.certificate.publicKeyPin
        // Python takes every value from its arguments, so its code is the same whatever the lesson says.
        let python = { (context: String, cafile: String?) in
            "python3 -c \"import sys, ssl, urllib.request as u; url, body, proxy = sys.argv[1:4]; context = \(context)"
                + (identity == nil ? "" : "; context.load_cert_chain(sys.argv[4], sys.argv[5])")
                + "; opener = u.build_opener(u.ProxyHandler({'https': proxy}), u.HTTPSHandler(context=context)); "
                + "print(opener.open(url, data=body.encode()).read().decode())\" "
                + [Self.shellQuoted("https://\(host)\(target)"), Self.shellQuoted(body), proxyURL].joined(separator: " ")
                + (identity.map { " \($0.certificate) \($0.key)" } ?? "") + (cafile.map { " " + $0 } ?? "")
        }
        let resolve = { (port: UInt16) in "--resolve " + Self.shellQuoted("\(host):\(port):\(self.listenHost)") }
        let defaultPolicy = "defaultPolicy (pinning none, allowInvalidCertificates NO, validatesDomainName YES)"
        let trustsOnly = "on a device that trusts only \(anchorWords)"
        let installed = installedCAStory.map { story in
            Command(
                title: "curl through the attacker, trusting the attacker's CA as this lesson's device does"
                    + (story.refusedByPin ? ", with the real leaf's key pinned" : ""),
                policy: story.policy(anchorWords: anchorWords),
                line:
                    "curl\(curlIdentity)\(story.refusedByPin ? " --pinnedpubkey '\(pin)'" : "") --proxy \(proxyURL) --cacert \(path(Lab.attackerCAID)) \(login)",
                expectation: expectations.curl(.throughAttacker, trusting: attackerCA, pinning: story.refusedByPin ? world.server.leaf.certificate : nil))
        }
        return [
            Command(
                title: "curl through the attacker, trusting only \(anchorWords)", policy: "\(defaultPolicy) \(trustsOnly)",
                line: "curl\(curlIdentity) --proxy \(proxyURL) --cacert \(legitRoot) \(login)",
                expectation: expectations.curl(.throughAttacker, trusting: anchor.certificate)),
            Command(
                title: "curl -k through the attacker", policy: "allowInvalidCertificates YES, validatesDomainName NO (-k checks neither chain nor host)",
                line: "curl -k\(curlIdentity) --proxy \(proxyURL) \(login)",
                expectation: expectations.curl(.throughAttacker, trusting: nil)),
            Command(
                title: "curl -k with the real leaf's key pinned",
                policy:
                    "SSLPinningMode publicKey with the real leaf pinned and allowInvalidCertificates YES (that is what -k means: no chain, "
                    + "date or host check); curl compares the pin with the leaf's key only, where AFSecurityPolicy accepts "
                    + "a pinned key on any certificate of the chain",
                line: "curl -k\(curlIdentity) --pinnedpubkey '\(pin)' --proxy \(proxyURL) \(login)",
                expectation: expectations.curl(.throughAttacker, trusting: nil, pinning: world.server.leaf.certificate)),
            Command(
                title: "curl straight to the bank", policy: "\(defaultPolicy) \(trustsOnly), no attacker on the path",
                line: "curl\(curlIdentity) \(resolve(originPort)) --cacert \(legitRoot) \(data) \(Self.shellQuoted("https://\(host):\(originPort)\(target)"))",
                expectation: expectations.curl(.straightToTheBank, trusting: anchor.certificate)),
            Command(
                title: "curl when the network routes \(host) to the attacker (transparent)", policy: "\(defaultPolicy) \(trustsOnly)",
                line: "curl\(curlIdentity) \(resolve(proxyPort)) --cacert \(legitRoot) \(data) \(Self.shellQuoted("https://\(host):\(proxyPort)\(target)"))",
                expectation: expectations.curl(.throughAttacker, trusting: anchor.certificate)),
            Command(
                title: "openssl s_client against the attacker, trusting only \(anchorWords)", policy: "\(defaultPolicy) \(trustsOnly)",
                line:
                    "openssl s_client\(opensslIdentity) -connect \(Self.shellQuoted(proxyAddress)) -servername \(host) -verify_return_error -verify_hostname \(host) -CAfile \(legitRoot) </dev/null",
                expectation: expectations.opensslHandshake(trusting: anchor.certificate)),
            Command(
                title: "openssl s_client trusting the attacker's CA (as if the user installed it)",
                policy: "\(defaultPolicy) on a device whose trust store holds the attacker's CA",
                line:
                    "openssl s_client\(opensslIdentity) -connect \(Self.shellQuoted(proxyAddress)) -servername \(host) -verify_return_error -verify_hostname \(host) -CAfile \(path(Lab.attackerCAID)) </dev/null",
                expectation: expectations.opensslHandshake(trusting: attackerCA)),
            Command(
                title: "Python urllib through the attacker, trusting only \(anchorWords)", policy: "\(defaultPolicy) \(trustsOnly)",
                line: python("ssl.create_default_context(cafile=sys.argv[-1])", legitRoot),
                expectation: expectations.python(trusting: anchor.certificate)),
            Command(
                title: "Python urllib with CERT_NONE", policy: "allowInvalidCertificates YES, validatesDomainName NO (CERT_NONE checks neither chain nor host)",
                line: python("ssl._create_unverified_context()", nil), expectation: expectations.python(trusting: nil)),
        ] + (installed.map { [$0] } ?? [])
    }
}

extension Lab.Command {
    init(title: String, policy: String, line: String, expectation: (words: String, outcome: Lab.Outcome)) {
        self.init(title: title, policy: policy, line: line, expected: expectation.words, outcome: expectation.outcome)
    }
}

/// Hands memory that ended connections freed back to the system, at most once a second (each time costs the
/// next connections page faults). The C library keeps freed memory for reuse, scattered over its per-thread
/// arenas; without this, a lab's size creeps up over a day of connections on many threads.
private final class FreedMemory: Sendable {
    /// glibc's `malloc_trim`, found at run time (Swift's Glibc module leaves out `<malloc.h>`); nil with another C library.
    private static let trim = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim").map { unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self) }
    private let lastTrim = Locked<ContinuousClock.Instant?>(nil)

    func connectionEnded() {
        let now = ContinuousClock.now
        let due = lastTrim.withLock { last in
            guard last.map({ now - $0 >= .seconds(1) }) ?? true else { return false }
            last = now
            return true
        }
        if due { _ = Self.trim?(0) }
    }
}
