import Simulation

/// The attacks `A` cycles through and the matrix can load, made from what a lesson's world contains.
struct AttackChoice {
    let spec: AttackerSpec

    /// Every attack the world can stage, in a fixed order: none, passthrough, forge (with each CA the
    /// device does not trust), self-signed, replay, mis-issue (with each trusted CA outside the server's
    /// chain), stolen key.
    static func available(in scenario: Scenario) -> [AttackChoice] {
        let chain = Set([scenario.server.leaf] + scenario.server.chain)
        let untrusted = scenario.world.authorities.filter { !$0.trustedByDevice && !chain.contains($0.id) }.map(\.id)
        let trusted = scenario.world.authorities.filter { $0.trustedByDevice && !chain.contains($0.id) }.map(\.id)
        var choices = [make(.none), make(.passthrough)]
        choices += untrusted.map { make(.forge, authority: $0) }
        choices += [make(.selfSigned), make(.replayRealChain)]
        choices += trusted.map { make(.misissued, authority: $0) }
        choices.append(make(.stolenKey))
        // Keep the lesson's own attack in the cycle even when it is one the list does not make.
        if !choices.contains(where: { $0.matches(scenario.attacker) }) { choices.insert(AttackChoice(spec: scenario.attacker), at: 0) }
        return choices
    }

    /// The matrix's attack for this world, when the world has what it needs.
    static func matching(_ attack: Matrix.AttackKind, in scenario: Scenario) -> AttackChoice? {
        let choices = available(in: scenario)
        switch attack {
        case .none: return choices.first { $0.spec.attack == .none }
        case .forgeUntrustedCA: return choices.first { $0.spec.attack == .forge }
        case .selfSigned: return choices.first { $0.spec.attack == .selfSigned }
        case .misissued: return choices.first { $0.spec.attack == .misissued }
        case .replayedChain: return choices.first { $0.spec.attack == .replayRealChain }
        case .stolenKey: return choices.first { $0.spec.attack == .stolenKey }
        case .forgeInstalledCA, .wrongHost, .expired: return nil
        }
    }

    func applied(to scenario: Scenario) -> Scenario {
        var scenario = scenario
        scenario.attacker = spec
        return scenario
    }

    func matches(_ other: AttackerSpec) -> Bool {
        spec.attack == other.attack && spec.authority == other.authority && spec.leaf == other.leaf
    }

    /// "forge with 'attacker-ca'", "none".
    static func describe(_ spec: AttackerSpec) -> String {
        switch spec.attack {
        case .forge, .misissued: "\(spec.attack.rawValue) with '\(spec.authority ?? "?")'"
        case .present: "present '\(spec.leaf ?? "?")'"
        default: spec.attack.rawValue
        }
    }

    /// Ids of every certificate in the world, authorities first: what `P` offers to pin.
    static func certificateIDs(in scenario: Scenario) -> [String] {
        scenario.world.authorities.map(\.id) + scenario.world.leaves.map(\.id)
    }

    private static func make(_ kind: AttackerSpec.Kind, authority: String? = nil) -> AttackChoice {
        var spec = AttackerSpec()
        spec.attack = kind
        spec.authority = authority
        return AttackChoice(spec: spec)
    }
}
