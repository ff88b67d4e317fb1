import Foundation
import LoopbackTLS
import PKI
import Policies

/// Every AFSecurityPolicy configuration against every attack, each cell a real run on 127.0.0.1.
///
/// The matrix's world is the scenario's plus what its columns need (an attacker CA, a second public CA
/// the device trusts, a certificate for another host, an expired certificate for the host), added to the
/// scenario itself, so every cell is a scenario: `scenario(for:)` loads it anywhere and runs the same.
public struct Matrix: Sendable {
    /// One column: an attack in the scenario's words, and whether the user installed the attacker's CA.
    public enum Column: String, Sendable, CaseIterable {
        case none, forgeUntrustedCA, forgeInstalledCA, selfSigned, wrongHost, expired, misissued, replayedChain, stolenKey

        /// The attack this column stages in `scenario` (already staged by `Matrix.staged`).
        public func attack(in scenario: Scenario) -> AttackSpec {
            switch self {
            case .none: AttackSpec(.none)
            case .forgeUntrustedCA, .forgeInstalledCA: AttackSpec(.forge, authority: Matrix.attackerCA)
            case .selfSigned: AttackSpec(.selfSigned)
            case .wrongHost: AttackSpec(.present, leaf: Matrix.wrongHostLeaf, chain: [Matrix.publicCA])
            case .expired: AttackSpec(.present, leaf: Matrix.expiredLeaf, chain: scenario.server.chain)
            case .misissued: AttackSpec(.misissued, authority: Matrix.publicCA)
            case .replayedChain: AttackSpec(.replayRealChain)
            case .stolenKey: AttackSpec(.stolenKey)
            }
        }

        /// The user was talked into installing the attacker's CA on the device.
        public var installsAttackerCA: Bool { self == .forgeInstalledCA }

        /// A short header for narrow tables; `meaning` says what each stands for.
        public var abbreviation: String {
            switch self {
            case .none: "none"
            case .forgeUntrustedCA: "forg"
            case .forgeInstalledCA: "inst"
            case .selfSigned: "self"
            case .wrongHost: "host"
            case .expired: "exp"
            case .misissued: "mis"
            case .replayedChain: "repl"
            case .stolenKey: "key"
            }
        }

        /// What the column stages, in words.
        public var meaning: String {
            switch self {
            case .none: "no attacker: the client reaches the real server"
            case .forgeUntrustedCA: "a forgery signed by the attacker's CA, which the device does not trust"
            case .forgeInstalledCA: "a forgery signed by the attacker's CA, which the user installed on the device"
            case .selfSigned: "a self-signed certificate for the host"
            case .wrongHost: "a valid certificate from a trusted public CA, for another host"
            case .expired: "a certificate for the host, issued like the real one, that has expired"
            case .misissued: "a certificate for the host mis-issued by a public CA the device trusts"
            case .replayedChain: "the real server's chain replayed, without its private key"
            case .stolenKey: "the real certificate with its stolen private key"
            }
        }
    }

    /// What is pinned, by role in the server's chain.
    public enum Pinned: String, Sendable, CaseIterable { case nothing, leaf, intermediate, root }

    /// Which policies a matrix's rows are.
    public enum Rows: Sendable, Hashable {
        /// Every setting of one release: pinning mode × allowInvalidCertificates × validatesDomainName (if the
        /// release has it) × validatesCertificateChain (if it has it; in the pinning modes only, the one place
        /// its `AFSecurityPolicy.m` reads it) × what is pinned.
        case settings(AFNetworkingVersion)
        /// Every release with its `+defaultPolicy`: mode none, allowInvalidCertificates NO, the validatesDomainName
        /// that release defaults to, nothing pinned.
        case versions
    }

    /// One row: a release of AFNetworking and its `AFSecurityPolicy` settings, with what is pinned by role.
    public struct Policy: Sendable, Hashable {
        /// Whose `AFSecurityPolicy.m` decides the row's cells.
        public let version: AFNetworkingVersion
        public let pinningMode: SSLPinningMode
        public let allowInvalidCertificates: Bool
        /// Ignored by a release without the property (2.0), which `version.hasValidatesDomainName` says.
        public let validatesDomainName: Bool
        /// Ignored by a release without the property (2.0, 2.6, 4), which `version.hasValidatesCertificateChain` says.
        public let validatesCertificateChain: Bool
        public let pinned: Pinned

        public init(
            version: AFNetworkingVersion = .v4, pinningMode: SSLPinningMode, allowInvalidCertificates: Bool, validatesDomainName: Bool,
            validatesCertificateChain: Bool = true, pinned: Pinned
        ) {
            self.version = version
            self.pinningMode = pinningMode
            self.allowInvalidCertificates = allowInvalidCertificates
            self.validatesDomainName = validatesDomainName
            self.validatesCertificateChain = validatesCertificateChain
            self.pinned = pinned
        }

        /// `version`'s `+defaultPolicy`: mode none, invalid certificates refused, its default validatesDomainName, nothing pinned.
        public static func defaultPolicy(of version: AFNetworkingVersion) -> Policy {
            Policy(
                version: version, pinningMode: .none, allowInvalidCertificates: false,
                validatesDomainName: version.defaultValidatesDomainName(for: .none), pinned: .nothing)
        }

        /// In full: "pinning mode certificate, allowInvalidCertificates YES, validatesDomainName NO, pinned intermediate",
        /// naming the release first unless it is AFNetworking 4, and only the properties the release has.
        public var description: String {
            (version == .v4 ? "" : "\(version.rawValue), ")
                + "pinning mode \(pinningMode.rawValue), allowInvalidCertificates \(yesNo(allowInvalidCertificates)), "
                + (version.hasValidatesDomainName ? "validatesDomainName \(yesNo(validatesDomainName)), " : "")
                + (version.hasValidatesCertificateChain ? "validatesCertificateChain \(yesNo(validatesCertificateChain)), " : "")
                + "pinned \(pinned.rawValue)"
        }

        /// "cert A=Y V=N pin intermediate": `label` with the pinning mode shortened (cert, pubkey), for narrow tables.
        public var shortLabel: String {
            let mode = ["certificate": "cert", "publicKey": "pubkey"][pinningMode.rawValue] ?? pinningMode.rawValue
            return "\(mode) \(flags) pin \(pinned.rawValue)"
        }

        /// "certificate  A=Y V=N pin intermediate" (with "C=Y" after V where the release has validatesCertificateChain,
        /// and no V where it has no validatesDomainName).
        public var label: String {
            "\(pinningMode.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)) \(flags) pin \(pinned.rawValue)"
        }

        /// "afnetworking-2.5.2  V=N": a row of the versions matrix, whose other settings are every release's defaults.
        public var versionLabel: String {
            version.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0) + (version.hasValidatesDomainName ? "V=\(yN(validatesDomainName))" : "")
        }

        /// "A=Y V=N C=Y", with only the properties the release has.
        private var flags: String {
            (["A=\(yN(allowInvalidCertificates))"] + (version.hasValidatesDomainName ? ["V=\(yN(validatesDomainName))"] : [])
                + (version.hasValidatesCertificateChain ? ["C=\(yN(validatesCertificateChain))"] : [])).joined(separator: " ")
        }

        private func yesNo(_ value: Bool) -> String { value ? "YES" : "NO" }
        private func yN(_ value: Bool) -> String { value ? "Y" : "N" }
    }

    public struct Cell: Sendable {
        public let policy: Policy
        public let column: Column
        public let trusted: Bool
        public let attackerSawPlaintext: Bool
        public let serverReceivedRequest: Bool
        /// The trace step that decided; nil when the client never judged a chain.
        public let decidingCheck: TraceStep.Check?

        /// "ACCEPTED at chainTrust", as a run's verdict line says it.
        public var verdict: String {
            guard let decidingCheck else { return trusted ? "ACCEPTED" : "NO VERDICT: the client never judged a chain" }
            return "\(trusted ? "ACCEPTED" : "REJECTED") at \(decidingCheck.rawValue)"
        }

        /// "LEAKED" (accepted, and the attacker read the traffic), "accepted" (accepted, nothing leaked) or "rejected".
        public var symbol: String { trusted ? (attackerSawPlaintext ? "LEAKED" : "accepted") : "rejected" }

        /// `symbol` in at most four letters, for narrow tables: LEAK, acc, rej.
        public var shortSymbol: String { trusted ? (attackerSawPlaintext ? "LEAK" : "acc") : "rej" }
    }

    /// What the symbols and abbreviations of the text table mean, one sentence each.
    public var legend: [String] {
        [Self.symbolLegend, policyLegend, appLegend] + columns.map { "\($0.rawValue): \($0.meaning)" }
    }

    /// Why every verdict is the policy's: the app around it is the same in every cell.
    var appLegend: String {
        "In every cell AFURLSessionManager asks the policy, and the Info.plist exempts '\(staged.server.host)' from ATS's trust check "
            + "(NSExceptionAllowsInsecureHTTPLoads YES), so AFSecurityPolicy alone decides."
    }

    /// The legend of a narrow table (short symbols, short labels, abbreviated columns), every abbreviation named.
    public var compactLegend: [String] {
        [
            "LEAK = LEAKED: accepted, and the attacker read the decrypted request; acc = accepted, nothing read; rej = rejected.",
            compactPolicyLegend,
            appLegend,
            "Attacks: " + columns.map { "\($0.abbreviation) = \($0.rawValue)" }.joined(separator: ", ") + ".",
        ]
    }

    static let symbolLegend =
        "LEAKED: the client accepted and the attacker read the decrypted request; accepted: the client accepted and the attacker read nothing; "
        + "rejected: the client refused the chain."

    /// What a row's label says: the flags and what is pinned, or for the versions matrix, whose rows differ only
    /// by release, the defaults every row has.
    var policyLegend: String {
        switch rows {
        case .versions:
            "Each row is that release's +defaultPolicy: pinning mode none, allowInvalidCertificates NO, nothing pinned, "
                + "and V = the validatesDomainName it defaults to (Y = YES, N = NO; afnetworking-2.0 has no validatesDomainName)."
        case .settings(let version):
            Self.flagLegend(version, "Y = YES, N = NO") + "; pin: what is pinned, by its place in the server's chain."
        }
    }

    private var compactPolicyLegend: String {
        switch rows {
        case .versions: policyLegend
        case .settings(let version): Self.flagLegend(version, "Y/N = YES/NO") + "; cert = certificate, pubkey = publicKey."
        }
    }

    /// "A = allowInvalidCertificates, V = validatesDomainName (Y = YES, N = NO)", naming only the flags `version` has.
    private static func flagLegend(_ version: AFNetworkingVersion, _ values: String) -> String {
        let flags =
            ["A = allowInvalidCertificates"] + (version.hasValidatesDomainName ? ["V = validatesDomainName"] : [])
            + (version.hasValidatesCertificateChain ? ["C = validatesCertificateChain"] : [])
        var notes = [values]
        if version.hasValidatesCertificateChain {
            notes.append("\(version.rawValue) reads C only in the pinning modes, so mode none keeps its default YES")
        }
        if !version.hasValidatesDomainName {
            notes.append("\(version.rawValue) has neither validatesDomainName nor validatesCertificateChain")
        }
        return flags.joined(separator: ", ") + " (" + notes.joined(separator: "; ") + ")"
    }

    /// The selected cell in words: its whole policy, its attack, and what happened.
    public func explanation(of cell: Cell) -> [String] {
        [
            "policy: " + cell.policy.description + (pinnedIDs[cell.policy.pinned].map { " ('\($0)')" } ?? ""),
            "attack: \(cell.column.rawValue) (\(cell.column.attack(in: staged).summary)): \(cell.column.meaning)",
            "result: \(cell.verdict), \(cell.symbol): "
                + (cell.attackerSawPlaintext ? "the attacker read the decrypted request" : "the attacker read nothing")
                + (cell.serverReceivedRequest ? ", and the bank received the request." : ", and the bank never received the request."),
        ]
    }

    /// Ids of the certificates the matrix adds to the scenario's world.
    static let attackerCA = "matrix-attacker-ca", publicCA = "matrix-public-ca"
    static let wrongHostLeaf = "matrix-wrong-host", expiredLeaf = "matrix-expired"

    public let scenarioID: String
    /// Whether the rows are one release's settings or every release's default policy.
    public let rows: Rows
    /// The scenario with the matrix's certificates added: every cell is this with a policy and an attack.
    public let staged: Scenario
    /// The world id pinned for each role (leaf, intermediate, root) that the server's chain has.
    public let pinnedIDs: [Pinned: String]
    public let columns: [Column]
    public let policies: [Policy]
    public let cells: [Cell]

    public func cell(_ policy: Policy, _ column: Column) -> Cell? {
        cells.first { $0.policy == policy && $0.column == column }
    }

    /// The scenario a cell ran: load it into the walkthrough or the runner and it gives the cell's verdict.
    public func scenario(for policy: Policy, _ column: Column) -> Scenario {
        Matrix.scenario(staged, policy, column, pinnedIDs: pinnedIDs)
    }

    static func scenario(_ staged: Scenario, _ policy: Policy, _ column: Column, pinnedIDs: [Pinned: String]) -> Scenario {
        var scenario = attacked(staged, column)
        scenario.client.library = .afnetworking(policy.version)
        scenario.client.policy = PolicySpec(
            pinningMode: policy.pinningMode, allowInvalidCertificates: policy.allowInvalidCertificates,
            validatesDomainName: policy.validatesDomainName, pinnedCertificates: pinnedIDs[policy.pinned].map { [$0] } ?? [],
            validatesCertificateChain: policy.validatesCertificateChain)
        return scenario
    }

    /// `staged` with `column`'s attack, and the attacker's CA installed on the device when the column says so.
    static func attacked(_ staged: Scenario, _ column: Column) -> Scenario {
        var scenario = staged
        scenario.attacker = column.attack(in: staged)
        if column.installsAttackerCA, let index = scenario.world.authorities.firstIndex(where: { $0.id == attackerCA }) {
            scenario.world.authorities[index].deviceTrust = .userInstalled
        }
        return scenario
    }

    /// Runs every cell, on `workers` threads that each reuse their own origin, proxies and clients.
    /// The rows are AFNetworking 4's settings unless `rows` says otherwise.
    public init(scenario: Scenario, rows: Rows = .settings(.v4), columns: [Column] = Column.allCases, workers: Int = 2) throws {
        let arena = try MatrixArena(scenario)
        let policies = arena.policies(rows)
        let jobs = policies.flatMap { policy in columns.map { (policy, $0) } }
        let cells = try arena.perform(jobs, columns: columns, workers: workers) { stage, job in
            let (policy, column) = job
            let scenario = Matrix.scenario(arena.staged, policy, column, pinnedIDs: arena.pinnedIDs)
            let run = try stage.run(scenario, column, app: ScenarioRunner.App(scenario, arena.world))
            return Cell(
                policy: policy, column: column, trusted: run.trusted, attackerSawPlaintext: run.attackerSawPlaintext,
                serverReceivedRequest: run.serverReceivedRequest, decidingCheck: run.evaluation?.decidingStep?.check)
        }
        scenarioID = scenario.id
        self.rows = rows
        staged = arena.staged
        pinnedIDs = arena.pinnedIDs
        self.columns = columns
        self.policies = policies
        self.cells = cells
    }
}

/// The matrix's world: the scenario's certificates plus the attackers' own, built once.
struct MatrixArena: Sendable {
    let staged: Scenario
    let world: World
    /// The same certificates with the attacker's CA installed on the device.
    let installed: World
    let pinnedIDs: [Matrix.Pinned: String]

    /// `keepsApp` keeps the scenario's App Transport Security and challenge handler (an audit judges the app as
    /// configured); otherwise AFSecurityPolicy alone decides, as in the matrix.
    init(_ scenario: Scenario, keepsApp: Bool = false) throws {
        staged = Self.stage(scenario, keepsApp: keepsApp)
        world = try World(staged)
        installed = world.installing(Matrix.attackerCA)
        var pinned: [Matrix.Pinned: String] = [.leaf: world.server.leaf.id]
        pinned[.intermediate] = scenario.server.chain.first
        pinned[.root] = world.server.root?.id
        pinnedIDs = pinned
    }

    /// `scenario` with the matrix's certificates added (the ids start with `matrix-`), and an app in which
    /// AFSecurityPolicy alone decides: AFURLSessionManager answers the challenge, the request is `https://`,
    /// and the Info.plist leaves the host's trust to the app, as the articles' apps do (`appLegend`).
    /// Staging a scenario a matrix cell was loaded from starts again from its own certificates, so the
    /// matrix's are never added twice, and the attacker's CA is again not trusted by the device.
    static func stage(_ scenario: Scenario, keepsApp: Bool = false) -> Scenario {
        var staged = scenario
        if !keepsApp {
            // The rows are AFSecurityPolicy's, whichever client the lesson runs.
            staged.client.library = .afnetworking(scenario.client.library.afnetworking ?? .v4)
            staged.client.challengeHandler = .afnetworking
            staged.client.ats = AppTransportSecurity(exceptionDomains: [scenario.server.host: .init(allowsInsecureHTTPLoads: true)])
        }
        staged.request.scheme = .https
        let own: Set = [Matrix.attackerCA, Matrix.publicCA, Matrix.wrongHostLeaf, Matrix.expiredLeaf]
        staged.world.authorities.removeAll { own.contains($0.id) }
        staged.world.leaves.removeAll { own.contains($0.id) }
        let clock = scenario.clock
        let host = scenario.server.host
        staged.world.authorities += [
            AuthoritySpec(id: Matrix.attackerCA, name: "Attacker CA"),
            AuthoritySpec(id: Matrix.publicCA, name: "Public CA", deviceTrust: .system),
        ]
        let leafIssuer = scenario.world.leaves.first { $0.id == scenario.server.leaf }?.issuer ?? "self"
        staged.world.leaves += [
            LeafSpec(id: Matrix.wrongHostLeaf, issuer: Matrix.publicCA, dnsNames: ["attacker.test"]),
            LeafSpec(
                id: Matrix.expiredLeaf, issuer: leafIssuer, dnsNames: [host],
                notBefore: clock.addingTimeInterval(-400 * 86_400), notAfter: clock.addingTimeInterval(-35 * 86_400)),
        ]
        return staged
    }

    /// `body` for every job, on `workers` threads that each reuse one `MatrixStage` (its origin, proxies and
    /// clients), in the order of `jobs`.
    func perform<Job: Sendable, Result: Sendable>(
        _ jobs: [Job], columns: [Matrix.Column], workers: Int, _ body: @Sendable (MatrixStage, Job) throws -> Result
    ) throws -> [Result] {
        let results = Locked<[Int: Result]>([:])
        let failure = Locked<Error?>(nil)
        DispatchQueue.concurrentPerform(iterations: max(1, workers)) { worker in
            do {
                let stage = try MatrixStage(self, columns: columns)
                defer { stage.stop() }
                for index in stride(from: worker, to: jobs.count, by: max(1, workers)) {
                    let result = try body(stage, jobs[index])
                    results.withLock { $0[index] = result }
                }
            } catch {
                failure.withLock { $0 = error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return results.withLock { done in jobs.indices.compactMap { done[$0] } }
    }

    /// The rows `rows` asks for; for one release's settings, what is pinned takes only the roles this chain has.
    func policies(_ rows: Matrix.Rows) -> [Matrix.Policy] {
        guard case .settings(let version) = rows else { return AFNetworkingVersion.allCases.map(Matrix.Policy.defaultPolicy(of:)) }
        return SSLPinningMode.allCases.flatMap { mode in
            // A property the release lacks takes the one value its policy has; validatesCertificateChain is read in pinning modes only.
            let validatesDomainName = version.hasValidatesDomainName ? [true, false] : [version.defaultValidatesDomainName(for: mode)]
            let validatesChain = version.hasValidatesCertificateChain && mode != .none ? [true, false] : [true]
            return [false, true].flatMap { allowInvalid in
                validatesDomainName.flatMap { validates in
                    validatesChain.flatMap { validatesChain in
                        Matrix.Pinned.allCases.filter { $0 == .nothing || pinnedIDs[$0] != nil }.map {
                            Matrix.Policy(
                                version: version, pinningMode: mode, allowInvalidCertificates: allowInvalid, validatesDomainName: validates,
                                validatesCertificateChain: validatesChain, pinned: $0)
                        }
                    }
                }
            }
        }
    }
}

/// One worker's servers: an origin, a proxy per column, and a client per trust store, reused for every cell.
final class MatrixStage: Sendable {
    private let origin: OriginServer
    private let proxies: [Matrix.Column: InterceptingProxy]
    /// A client that trusts the device's store, and one whose user installed the attacker's CA.
    private let client: TLSClient, installedClient: TLSClient

    init(_ arena: MatrixArena, columns: [Matrix.Column]) throws {
        let staged = arena.staged
        let world = arena.world
        let log = EventLog()
        origin = try OriginServer(ScenarioRunner.originConfiguration(staged, world), log: log)
        var proxies: [Matrix.Column: InterceptingProxy] = [:]
        do {
            for column in columns {
                if let attack = try column.attack(in: staged).resolved(in: world, file: staged.file) {
                    proxies[column] = try InterceptingProxy(
                        attack: attack, routes: [staged.server.host: origin.port], log: log, factory: world.factory,
                        allowsWeakCryptography: staged.needsWeakCryptography)
                }
            }
            self.proxies = proxies
            func makeClient(_ world: World) throws -> TLSClient {
                try TLSClient(
                    host: staged.server.host, trustStore: world.deviceTrustStore, verifyDate: world.factory.now, platform: staged.client.platform,
                    identity: try ScenarioRunner.App(staged, world).identity, allowsWeakCryptography: staged.needsWeakCryptography)
            }
            client = try makeClient(world)
            installedClient = try makeClient(arena.installed)
        } catch {
            for proxy in proxies.values { proxy.stop() }
            origin.stop()
            throw error
        }
    }

    /// What one run showed: the verdict, what the attacker read, whether the bank got the request.
    struct Run: Sendable {
        let evaluation: PolicyEvaluation?
        let attackerSawPlaintext: Bool
        let serverReceivedRequest: Bool

        var trusted: Bool { evaluation?.isTrusted ?? false }
    }

    /// `scenario` (the staged one under `column`'s attack, see `Matrix.attacked`) with `app` deciding.
    func run(_ scenario: Scenario, _ column: Matrix.Column, app: ScenarioRunner.App) -> Run {
        let proxy = proxies[column]
        let flowsBefore = proxy?.flows.count ?? 0
        let requestsBefore = origin.requestsReceived.count
        let client = column.installsAttackerCA ? installedClient : client
        let outcome = ScenarioRunner.exchange(scenario, app, client: client, port: proxy?.port ?? origin.port, log: EventLog())
        let flows = proxy?.flows.dropFirst(flowsBefore) ?? []
        return Run(
            evaluation: outcome.evaluation, attackerSawPlaintext: flows.contains(where: \.sawPlaintext),
            serverReceivedRequest: origin.requestsReceived.count > requestsBefore)
    }

    func stop() {
        for proxy in proxies.values { proxy.stop() }
        origin.stop()
    }
}
