import Policies

/// An attack in the scenario's words (the `attacker` block), the one vocabulary every front end uses:
/// lessons, the console's `A` key, the matrix's columns and the lab. `none` means nobody is on the path.
public struct AttackSpec: Sendable, Decodable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case none, passthrough, forge, selfSigned, replayRealChain, misissued, misissuedLogged, stolenKey, present
    }

    public var attack: Kind = .none
    /// The CA that signs forgeries (`forge`) or mis-issues (`misissued`, `misissuedLogged`).
    public var authority: String?
    /// For `present`: the leaf the attacker shows (it holds its key) and what follows it.
    public var leaf: String?
    public var chain: [String] = []
    /// The runtime hooks of an attacker who also controls the app's process, by name (`RuntimeHook.name`): they
    /// patch the client's decision, while the attack above still happens on the network.
    public var hooks: [String] = []

    public init(_ attack: Kind = .none, authority: String? = nil, leaf: String? = nil, chain: [String] = [], hooks: [String] = []) {
        self.attack = attack
        self.authority = authority
        self.leaf = leaf
        self.chain = chain
        self.hooks = hooks
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case attack, authority, leaf, chain, hooks }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        attack = try container.decodeChoice(Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0.rawValue, $0) }), forKey: .attack)
        authority = try container.decodeValueIfPresent(String.self, forKey: .authority)
        leaf = try container.decodeValueIfPresent(String.self, forKey: .leaf)
        chain = try container.decodeStrings(forKey: .chain)
        hooks = try container.decodeStrings(forKey: .hooks)
    }
}
