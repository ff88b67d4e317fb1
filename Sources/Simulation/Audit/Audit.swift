import Foundation
import PKI
import Policies

/// `mitmsim audit`: every attack of the matrix against every host the configurations cover, each a real run on
/// 127.0.0.1 in a world shaped like the real one, judged by the configured clients; plus the warnings a reviewer
/// would raise. `Docs/audit.md` explains it for a developer.
public struct Audit: Sendable {
    /// One attack against one host, as one client judged it.
    public struct AttackVerdict: Sendable {
        public let column: Matrix.Column
        public let result: RunOutcome

        public var trusted: Bool { result.trusted }
        public var attackerSawPlaintext: Bool { result.attackerSawPlaintext }
        /// The step that decided; nil when the client never judged a chain (the handshake ended first).
        public var decidingCheck: TraceStep.Check? { result.decidingCheck }

        /// True when the client accepted an attacker who then read the request: counted for every column but
        /// `none` (the real server) and `stolenKey` (the real key, which no client-side check can tell from the server).
        public var getsThrough: Bool { trusted && attackerSawPlaintext && column.isCountedAttack }
    }

    /// One client's verdicts on one host.
    public struct Verdicts: Sendable {
        public let client: String
        public let attacks: [AttackVerdict]
    }

    /// One host: where it came from, its generated world, its pins, and every client's verdicts.
    public struct HostReport: Sendable {
        public let host: AuditHost
        /// How the world was shaped and what was assumed, one sentence each.
        public let shape: [String]
        public let pins: [AuditPin]
        public let clients: [Verdicts]
    }

    /// A finding a reviewer would raise, with a stable kind for tools.
    public struct Warning: Sendable, Equatable {
        public enum Kind: String, Sendable, CaseIterable {
            case noBackupPin, pinMatchesNothing, expiredPins, reportOnly, overridePinsOnUserAnchors, userAnchors, atsDisablesTrust
            case allowInvalidCertificates, validatesDomainNameOff, acceptAllHandler, pinningWithoutPins, unmodelledKey, refusesRealServer
        }

        public let kind: Kind
        public let message: String
    }

    public let hosts: [HostReport]
    public let warnings: [Warning]
    /// The moment the audit judged at: expirations are compared with it and the worlds are built at it.
    public let clock: Date

    /// True when some client accepted some attack: the audit's exit status is 1.
    public var attackGotThrough: Bool { hosts.contains { $0.clients.contains { $0.attacks.contains(where: \.getsThrough) } } }

    /// Runs the audit at `clock` (now by default) on `workers` threads per host.
    public init(_ configuration: AuditConfiguration, clock: Date = Date(), workers: Int = 2) throws {
        // Whole seconds: the generated certificates carry the clock, and X.509 times have no fractions.
        let clock = Date(timeIntervalSince1970: clock.timeIntervalSince1970.rounded(.down))
        let judges = try configuration.judges()
        let columns = Matrix.Column.allCases
        var reports: [HostReport] = []
        var warnings = configuration.warnings(at: clock)
        // Every host's world has the same ids: its keys are made once, for the first host (`KeyRing`).
        let keys = KeyRing()
        let named = try configuration.hosts()
        guard named.count * judges.count * columns.count <= AuditLimits.runs else {
            throw AuditError(
                "the configurations name \(named.count) hosts for \(judges.count) clients to judge: \(named.count * judges.count * columns.count) real runs "
                    + "(\(columns.count) attacks each), the most one audit makes is \(AuditLimits.runs); audit fewer configuration files or hosts at once")
        }
        for host in named {
            let audited = try configuration.world(for: host, clock: clock)
            let arena = try MatrixArena(audited.scenario, keepsApp: true, keys: keys)
            let apps = try judges.map { try $0.app(arena.staged, arena.world, audited) }
            let jobs = apps.indices.flatMap { judge in columns.map { (judge, $0) } }
            let results = try arena.perform(jobs, columns: columns, workers: workers) { stage, job in
                let scenario = Matrix.attacked(arena.staged, job.1)
                return AttackVerdict(column: job.1, result: stage.run(scenario, job.1, app: apps[job.0]))
            }
            let verdicts = judges.indices.map { judge in
                Verdicts(client: judges[judge].name, attacks: Array(results[(judge * columns.count)..<((judge + 1) * columns.count)]))
            }
            for verdict in verdicts where verdict.attacks.contains(where: { $0.column == .none && !$0.trusted }) {
                warnings.append(
                    Warning(
                        kind: .refusesRealServer,
                        message: "\(verdict.client) refuses the real server of \(host.name) itself (no attacker): the app could not connect"))
            }
            warnings += Self.pinWarnings(audited.pins, host: host.name, chainGiven: configuration.chain(for: host.name) != nil)
            reports.append(HostReport(host: host, shape: audited.shape, pins: audited.pins, clients: verdicts))
        }
        hosts = reports
        self.warnings = warnings
        self.clock = clock
    }

    /// With a chain: every pin that matches none of its certificates. Per pin list: a list of one pin has no backup.
    static func pinWarnings(_ pins: [AuditPin], host: String, chainGiven: Bool) -> [Warning] {
        var warnings: [Warning] = []
        if chainGiven {
            for pin in pins where pin.worldID == nil || pin.worldID?.hasPrefix("backup-") == true {
                warnings.append(
                    Warning(
                        kind: .pinMatchesNothing,
                        message: "\(pin.source): pin sha256/\(pin.hash) matches no certificate of the chain given for \(host) (a backup pin, or a mistake)"))
            }
        }
        for group in Set(pins.map(\.group)).sorted() where pins.filter({ $0.group == group }).count == 1 {
            let replaced = pins.first { $0.group == group }?.pinsAuthority == true ? "the pinned CA's key" : "the server's key"
            warnings.append(
                Warning(
                    kind: .noBackupPin,
                    message: "\(group) pins one key for \(host): no backup pin, so the app breaks when \(replaced) is replaced"))
        }
        return warnings
    }
}

extension Matrix.Column {
    /// Every column but the real server (`none`) and the stolen key, which no client-side check can tell apart.
    var isCountedAttack: Bool { self != .none && self != .stolenKey }
}
