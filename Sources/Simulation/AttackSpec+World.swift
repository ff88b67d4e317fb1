import LoopbackTLS
import PKI

extension AttackSpec {
    /// What the proxy runs for this attack in `world`; nil when nobody is on the path.
    ///
    /// The one place an attack's words become certificates and keys, so a lesson, a matrix cell and the
    /// console's `A` key that name the same attack stage exactly the same thing.
    func resolved(in world: World, file: String) throws -> Attack? {
        func authority() throws -> Identity {
            guard let id = self.authority else {
                throw ScenarioError(file: file, path: "attacker.authority", reason: "missing (\(attack.rawValue) needs the CA that signs)")
            }
            return try world.entry(id, file: file, path: "attacker.authority").identity
        }
        switch attack {
        case .none: return nil
        case .passthrough: return .passthrough
        case .forge: return .forge(authority: try authority())
        case .selfSigned: return .selfSigned
        case .replayRealChain: return .replayRealChain
        case .misissued: return .misissued(authority: try authority())
        case .misissuedLogged:
            let signer = try authority()
            // The CA logs its forgery where it counts: in every log the device knows.
            let known = world.transparencyLogs.logs
            return .misissuedLogged(
                authority: signer, chain: world.chain(above: self.authority ?? ""), logs: world.logs.filter { known.contains($0.listing) })
        case .stolenKey: return .stolenKey(world.server.leaf.identity.privateKey)
        case .present:
            guard let id = leaf else { throw ScenarioError(file: file, path: "attacker.leaf", reason: "missing (present needs the leaf the attacker shows)") }
            let shown = try world.entry(id, file: file, path: "attacker.leaf")
            return .present(
                chain: [shown.certificate] + (try world.certificates(chain, file: file, path: "attacker.chain")), key: shown.identity.privateKey,
                note: "a certificate the attacker holds the key for")
        }
    }

    /// "forge with 'attacker-ca'", "present 'other-host'", "none", then the hooks when there are any
    /// ("misissued with 'public-ca', hooking setSSLPinningMode").
    public var summary: String {
        let network =
            switch attack {
            case .forge, .misissued, .misissuedLogged: "\(attack.rawValue) with '\(authority ?? "")'"
            case .present: "present '\(leaf ?? "")'" + (chain.isEmpty ? "" : " with " + chain.map { "'\($0)'" }.joined(separator: ", "))
            default: attack.rawValue
            }
        return hooks.isEmpty ? network : "\(network), hooking \(hooks.joined(separator: ", "))"
    }

    /// Every attack `scenario`'s world can stage, in a fixed order: none, passthrough, forge (with each
    /// CA the device does not trust), self-signed, replay, mis-issue (with each trusted CA outside the
    /// server's chain), stolen key, then mis-issue and log (with each CA outside the chain under a root built into
    /// iOS); the lesson's own attack stays in the cycle when the list lacks it.
    /// The hooks go with every choice: the network attack and the hooked process are chosen apart (the console's
    /// `A` and `F` keys).
    public static func choices(in scenario: Scenario) -> [AttackSpec] {
        let served = Set([scenario.server.leaf] + scenario.server.chain)
        let outside = scenario.world.authorities.filter { !served.contains($0.id) }
        let hooks = scenario.attacker.hooks
        var choices = [AttackSpec(.none, hooks: hooks), AttackSpec(.passthrough, hooks: hooks)]
        choices += outside.filter { $0.deviceTrust?.isAnchor != true }.map { AttackSpec(.forge, authority: $0.id, hooks: hooks) }
        choices += [AttackSpec(.selfSigned, hooks: hooks), AttackSpec(.replayRealChain, hooks: hooks)]
        choices += outside.filter { $0.deviceTrust?.isAnchor == true }.map { AttackSpec(.misissued, authority: $0.id, hooks: hooks) }
        choices.append(AttackSpec(.stolenKey, hooks: hooks))
        choices += outside.filter { scenario.world.root(of: $0.id)?.deviceTrust == .system }.map {
            AttackSpec(.misissuedLogged, authority: $0.id, hooks: hooks)
        }
        if !choices.contains(scenario.attacker) { choices.insert(scenario.attacker, at: 0) }
        return choices
    }

    /// The attack after this one in `choices(in:)`, wrapping around.
    public func next(in scenario: Scenario) -> AttackSpec {
        let choices = Self.choices(in: scenario)
        let current = choices.firstIndex(of: self) ?? -1
        return choices[(current + 1) % choices.count]
    }
}
