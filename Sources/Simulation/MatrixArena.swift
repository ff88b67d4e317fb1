import Foundation
import LoopbackTLS
import Policies

/// The matrix's world: the scenario's certificates plus the attackers' own, built once.
struct MatrixArena: Sendable {
    let staged: Scenario
    let world: World
    /// The same certificates with the attacker's CA installed on the device.
    let installed: World
    let pinnedIDs: [Matrix.Pinned: String]

    /// `keepsApp` keeps the scenario's App Transport Security and challenge handler (an audit judges the app as
    /// configured); otherwise AFSecurityPolicy alone decides, as in the matrix. `keys` shares keys between arenas.
    init(_ scenario: Scenario, keepsApp: Bool = false, keys: KeyRing? = nil) throws {
        staged = Self.stage(scenario, keepsApp: keepsApp)
        world = try World(staged, keys: keys)
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
