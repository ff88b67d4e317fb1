import Policies

/// The certificates of a lesson: authorities (roots and intermediates), leaves, and a client identity.
public struct WorldSpec: Sendable, Decodable {
    public var authorities: [AuthoritySpec]
    public var leaves: [LeafSpec]
    public var clientIdentity: ClientIdentitySpec?

    enum CodingKeys: String, CodingKey, CaseIterable { case authorities, leaves, clientIdentity }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        authorities = try container.decode([AuthoritySpec].self, forKey: .authorities)
        leaves = try container.decode([LeafSpec].self, forKey: .leaves)
        clientIdentity = try container.decodeIfPresent(ClientIdentitySpec.self, forKey: .clientIdentity)
    }
}
