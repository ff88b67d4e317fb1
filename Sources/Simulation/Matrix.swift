import Foundation
import LoopbackTLS
import PKI
import Policies

/// Every AFSecurityPolicy configuration against every attack, each cell a real run on 127.0.0.1.
///
/// The scenario gives the world and the server; the matrix adds what its attacks need (an attacker CA,
/// a second public CA, a certificate for another host, an expired certificate for the host).
public struct Matrix: Sendable {
    public enum AttackKind: String, Sendable, CaseIterable {
        case none, forgeUntrustedCA, forgeInstalledCA, selfSigned, wrongHost, expired, misissued, replayedChain, stolenKey
    }

    /// What is pinned, by role in the server's chain.
    public enum Pinned: String, Sendable, CaseIterable { case nothing, leaf, intermediate, root }

    public struct Policy: Sendable, Hashable {
        public let pinningMode: SSLPinningMode
        public let allowInvalidCertificates: Bool
        public let validatesDomainName: Bool
        public let pinned: Pinned

        public init(pinningMode: SSLPinningMode, allowInvalidCertificates: Bool, validatesDomainName: Bool, pinned: Pinned) {
            self.pinningMode = pinningMode
            self.allowInvalidCertificates = allowInvalidCertificates
            self.validatesDomainName = validatesDomainName
            self.pinned = pinned
        }

        /// "certificate  A=Y V=N pin intermediate".
        public var label: String {
            "\(pinningMode.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)) A=\(allowInvalidCertificates ? "Y" : "N") "
                + "V=\(validatesDomainName ? "Y" : "N") pin \(pinned.rawValue)"
        }
    }

    public struct Cell: Sendable {
        public let policy: Policy
        public let attack: AttackKind
        public let trusted: Bool
        public let attackerSawPlaintext: Bool
        public let serverReceivedRequest: Bool

        /// "LEAKED" (accepted, and the attacker read the traffic), "accepted" (accepted, nothing leaked) or "rejected".
        public var symbol: String { trusted ? (attackerSawPlaintext ? "LEAKED" : "accepted") : "rejected" }
    }

    public let scenarioID: String
    /// The world id pinned for each role (leaf, intermediate, root) that the server's chain has.
    public let pinnedIDs: [Pinned: String]
    public let attacks: [AttackKind]
    public let policies: [Policy]
    public let cells: [Cell]

    public func cell(_ policy: Policy, _ attack: AttackKind) -> Cell? {
        cells.first { $0.policy == policy && $0.attack == attack }
    }

    /// Runs every cell, on `workers` threads that each reuse their own origin, proxies and clients.
    public init(scenario: Scenario, attacks: [AttackKind] = AttackKind.allCases, workers: Int = 2) throws {
        let arena = try MatrixArena(scenario)
        let policies = arena.policies
        let jobs = policies.flatMap { policy in attacks.map { (policy, $0) } }
        let results = Locked<[Int: Cell]>([:])
        let failure = Locked<Error?>(nil)
        DispatchQueue.concurrentPerform(iterations: max(1, workers)) { worker in
            do {
                let stage = try MatrixStage(arena, attacks: attacks)
                defer { stage.stop() }
                for index in stride(from: worker, to: jobs.count, by: max(1, workers)) {
                    let cell = stage.run(jobs[index].0, jobs[index].1)
                    results.withLock { $0[index] = cell }
                }
            } catch {
                failure.withLock { $0 = error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        scenarioID = scenario.id
        pinnedIDs = arena.roles.compactMapValues { certificate in arena.world.identities.first { $0.identity.certificate == certificate }?.id }
        self.attacks = attacks
        self.policies = policies
        cells = results.withLock { done in jobs.indices.compactMap { done[$0] } }
    }
}

/// The matrix's world: the scenario's certificates plus the attackers' own.
struct MatrixArena: Sendable {
    let scenario: Scenario
    let world: World
    let roles: [Matrix.Pinned: Certificate]
    let attackerCA: Identity, publicCA: Identity, wrongHost: Identity, expired: Identity, misissued: Identity

    init(_ scenario: Scenario) throws {
        self.scenario = scenario
        world = try World(scenario.world, clock: scenario.clock)
        let factory = world.factory
        let clock = scenario.clock
        let leaf = world.identity(scenario.server.leaf)!
        var roles: [Matrix.Pinned: Certificate] = [.leaf: leaf.certificate]
        if let intermediate = scenario.server.chain.first.flatMap(world.identity) { roles[.intermediate] = intermediate.certificate }
        roles[.root] = world.identities.map(\.identity.certificate).first { candidate in
            candidate.isSelfIssued && candidate.isAuthority && (roles[.intermediate] ?? leaf.certificate).isSigned(by: candidate) && candidate != leaf.certificate
        }
        self.roles = roles
        let start = clock.addingTimeInterval(-30 * 86_400), end = clock.addingTimeInterval(365 * 86_400)
        attackerCA = try factory.makeIdentity(.authority(label: "matrix-attacker-ca", commonName: "Attacker CA", notBefore: start, notAfter: end))
        publicCA = try factory.makeIdentity(.authority(label: "matrix-public-ca", commonName: "Public CA", notBefore: start, notAfter: end))
        wrongHost = try factory.makeIdentity(.serverLeaf(label: "attacker.test", dnsNames: ["attacker.test"], notBefore: start, notAfter: end), signedBy: publicCA)
        let host = scenario.server.host
        let issuer = world.identities.first { leaf.certificate.isSigned(by: $0.identity.certificate) && $0.identity.certificate.isAuthority }?.identity
        expired = try factory.makeIdentity(.serverLeaf(label: "expired \(host)", dnsNames: [host], notBefore: clock.addingTimeInterval(-400 * 86_400),
                                                       notAfter: clock.addingTimeInterval(-35 * 86_400)), signedBy: issuer)
        misissued = try factory.makeIdentity(.serverLeaf(label: "mis-issued \(host)", dnsNames: [host], notBefore: start, notAfter: end), signedBy: publicCA)
    }

    /// Every pinning mode × allowInvalidCertificates × validatesDomainName × what is pinned (when that role exists).
    var policies: [Matrix.Policy] {
        SSLPinningMode.allCases.flatMap { mode in
            [false, true].flatMap { allowInvalid in
                [true, false].flatMap { validates in
                    Matrix.Pinned.allCases.filter { $0 == .nothing || roles[$0] != nil }.map {
                        Matrix.Policy(pinningMode: mode, allowInvalidCertificates: allowInvalid, validatesDomainName: validates, pinned: $0)
                    }
                }
            }
        }
    }

    func attack(_ kind: Matrix.AttackKind) -> Attack? {
        switch kind {
        case .none: nil
        case .forgeUntrustedCA, .forgeInstalledCA: .forge(authority: attackerCA)
        case .selfSigned: .selfSigned
        case .wrongHost: .present(chain: [wrongHost.certificate, publicCA.certificate], key: wrongHost.privateKey, note: "a valid certificate for another host")
        case .expired: .present(chain: [expired.certificate] + scenario.server.chain.compactMap { world.identity($0)?.certificate },
                                key: expired.privateKey, note: "an expired certificate for the host")
        case .misissued: .misissued(authority: publicCA)
        case .replayedChain: .replayRealChain
        case .stolenKey: .stolenKey(world.identity(scenario.server.leaf)!.privateKey)
        }
    }

    /// The device trust store: the scenario's, a public CA, and the attacker's CA when "the user installed it".
    func trustStore(attackerInstalled: Bool) -> [Certificate] {
        world.deviceTrustStore + [publicCA.certificate] + (attackerInstalled ? [attackerCA.certificate] : [])
    }
}

/// One worker's servers: an origin, a proxy per attack, and a client per trust store, reused for every cell.
final class MatrixStage: @unchecked Sendable {
    private let arena: MatrixArena
    private let log = EventLog()
    private let origin: OriginServer
    private let proxies: [Matrix.AttackKind: InterceptingProxy]
    private let clients: [Bool: TLSClient]

    init(_ arena: MatrixArena, attacks: [Matrix.AttackKind]) throws {
        self.arena = arena
        let scenario = arena.scenario
        origin = try OriginServer(ScenarioRunner.originConfiguration(scenario, arena.world), log: log)
        var proxies: [Matrix.AttackKind: InterceptingProxy] = [:]
        for kind in attacks {
            if let attack = arena.attack(kind) {
                proxies[kind] = try InterceptingProxy(attack: attack, routes: [scenario.server.host: origin.port], log: log, factory: arena.world.factory)
            }
        }
        self.proxies = proxies
        clients = try Dictionary(uniqueKeysWithValues: [false, true].map { installed in
            (installed, try TLSClient(host: scenario.server.host, trustStore: arena.trustStore(attackerInstalled: installed),
                                      verifyDate: scenario.clock, identity: arena.world.clientIdentity))
        })
    }

    func run(_ policy: Matrix.Policy, _ attack: Matrix.AttackKind) -> Matrix.Cell {
        var scenario = arena.scenario
        let pinnedID = arena.roles[policy.pinned].flatMap { pinned in arena.world.identities.first { $0.identity.certificate == pinned }?.id }
        scenario.client.policy = PolicySpec(pinningMode: policy.pinningMode, allowInvalidCertificates: policy.allowInvalidCertificates,
                                            validatesDomainName: policy.validatesDomainName, pinnedCertificates: pinnedID.map { [$0] } ?? [])
        let proxy = proxies[attack]
        let flowsBefore = proxy?.flows.count ?? 0
        let requestsBefore = origin.requestsReceived.count
        let result = ScenarioRunner.exchange(scenario, arena.world, client: clients[attack == .forgeInstalledCA]!,
                                             port: proxy?.port ?? origin.port, log: EventLog())
        let flows = proxy?.flows.dropFirst(flowsBefore) ?? []
        return Matrix.Cell(policy: policy, attack: attack, trusted: result.verdict?.evaluation.isTrusted ?? false,
                           attackerSawPlaintext: flows.contains(where: \.sawPlaintext),
                           serverReceivedRequest: origin.requestsReceived.count > requestsBefore)
    }

    func stop() {
        proxies.values.forEach { $0.stop() }
        origin.stop()
    }
}
