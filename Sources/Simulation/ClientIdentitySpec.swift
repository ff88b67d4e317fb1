import Policies

/// A client certificate for two-way TLS, shipped in the app as a password-protected `.p12`.
public struct ClientIdentitySpec: Sendable, Decodable {
    public var id: String
    public var issuer: String
    public var name: String
    public var password: String

    enum CodingKeys: String, CodingKey, CaseIterable { case id, issuer, name, password }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        id = try container.decodeValue(String.self, forKey: .id)
        issuer = try container.decodeValue(String.self, forKey: .issuer)
        name = try container.decodeValueIfPresent(String.self, forKey: .name) ?? id
        password = try container.decodeValue(String.self, forKey: .password)
    }
}
