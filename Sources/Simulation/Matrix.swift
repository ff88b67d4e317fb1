import Foundation
import Policies

/// Every AFSecurityPolicy configuration against every attack, each cell a real run on 127.0.0.1.
///
/// The matrix's world is the scenario's plus what its columns need (an attacker CA, a second public CA
/// the device trusts, a certificate for another host, an expired certificate for the host), added to the
/// scenario itself, so every cell is a scenario: `scenario(for:)` loads it anywhere and runs the same.
public struct Matrix: Sendable {
    /// One column: an attack in the scenario's words, and whether the user installed the attacker's CA.
    public enum Column: String, Sendable, CaseIterable {
        case none, forgeUntrustedCA, forgeInstalledCA, selfSigned, wrongHost, expired, misissued, misissuedLogged, replayedChain, stolenKey

        /// The attack this column stages in `scenario` (already staged by `Matrix.staged`).
        public func attack(in scenario: Scenario) -> AttackSpec {
            switch self {
            case .none: AttackSpec(.none)
            case .forgeUntrustedCA, .forgeInstalledCA: AttackSpec(.forge, authority: Matrix.attackerCA)
            case .selfSigned: AttackSpec(.selfSigned)
            case .wrongHost: AttackSpec(.present, leaf: Matrix.wrongHostLeaf, chain: [Matrix.publicCA])
            case .expired: AttackSpec(.present, leaf: Matrix.expiredLeaf, chain: scenario.server.chain)
            case .misissued: AttackSpec(.misissued, authority: Matrix.publicCA)
            case .misissuedLogged: AttackSpec(.misissuedLogged, authority: Matrix.publicCA)
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
            case .misissuedLogged: "misL"
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
            case .misissued: "a certificate for the host mis-issued by a public CA the device trusts, logged nowhere"
            case .misissuedLogged: "the same mis-issued certificate, logged in the CT logs the device knows"
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
            let policy = SecurityPolicy(
                version: version, SSLPinningMode: pinningMode, allowInvalidCertificates: allowInvalidCertificates,
                validatesDomainName: validatesDomainName, validatesCertificateChain: validatesCertificateChain)
            return (version == .v4 ? "" : "\(version.rawValue), ") + (policy.settings + ["pinned \(pinned.rawValue)"]).joined(separator: ", ")
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

        private func yN(_ value: Bool) -> String { value ? "Y" : "N" }
    }

    /// One policy against one attack: what that run showed.
    public struct Cell: Sendable {
        public let policy: Policy
        public let column: Column
        public let result: RunOutcome

        public var trusted: Bool { result.trusted }
        public var attackerSawPlaintext: Bool { result.attackerSawPlaintext }
        public var serverReceivedRequest: Bool { result.serverReceivedRequest }
        /// The trace step that decided; nil when the client never judged a chain.
        public var decidingCheck: TraceStep.Check? { result.decidingCheck }

        /// "ACCEPTED at chainTrust", as a run's verdict line says it.
        public var verdict: String { result.verdict(noVerdict: "the client never judged a chain") }

        /// "LEAKED" (accepted, and the attacker read the traffic), "accepted" (accepted, nothing leaked) or "rejected".
        public var symbol: String { trusted ? (attackerSawPlaintext ? "LEAKED" : "accepted") : "rejected" }

        /// `symbol` in at most four letters, for narrow tables: LEAK, acc, rej.
        public var shortSymbol: String { trusted ? (attackerSawPlaintext ? "LEAK" : "acc") : "rej" }
    }

    /// What the symbols and abbreviations of the text table mean, one sentence each.
    public var legend: [String] {
        [Self.symbolLegend, policyLegend, appLegend] + columns.map { "\($0.rawValue): \($0.meaning)" }
    }

    /// Why every verdict is the policy's: the app around it is the same in every cell. Rows of 3.0.0–3.0.4,
    /// whose NO leaves the decision to the system (`rejectsProtectionSpace`), say so.
    var appLegend: String {
        let app =
            "In every cell AFURLSessionManager asks the policy, and the Info.plist exempts '\(staged.server.host)' from ATS's trust check "
            + "(NSExceptionAllowsInsecureHTTPLoads YES)"
        guard let release = policies.map(\.version).first(where: \.rejectsProtectionSpace) else { return app + ", so AFSecurityPolicy alone decides." }
        return app + ", so AFSecurityPolicy decides, except that when it says NO, \(release.rawValue) answers RejectProtectionSpace "
            + "and the system's default evaluation decides."
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
            return Cell(policy: policy, column: column, result: try stage.run(scenario, column, app: ScenarioRunner.App(scenario, arena.world)))
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
