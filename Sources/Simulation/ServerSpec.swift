import PKI
import Policies

public struct ServerSpec: Sendable, Decodable {
    public var host: String
    /// The leaf the real server presents.
    public var leaf: String
    /// What it sends after the leaf (usually its intermediate).
    public var chain: [String]
    public var versions: ClosedRange<TLSVersion>
    /// Two-way TLS: the client must present the world's client identity.
    public var requireClientCertificate: Bool
    /// False: the server offers only cipher suites with RSA key exchange, which App Transport Security
    /// refuses (TLS 1.2 and an RSA leaf only; the loader checks both).
    public var forwardSecrecy: Bool

    enum CodingKeys: String, CodingKey, CaseIterable { case host, leaf, chain, tlsVersion, requireClientCertificate, forwardSecrecy }

    /// What `tlsVersion` may say: 1.0 and 1.1 only alone, for the lessons about servers ATS refuses.
    static let versionNames: [String: ClosedRange<TLSVersion>] = [
        "1.0": .tls10 ... .tls10, "1.1": .tls11 ... .tls11, "1.2": .tls12 ... .tls12, "1.3": .tls13 ... .tls13, "any": .tls12 ... .tls13,
    ]

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        host = try container.decodeValue(String.self, forKey: .host)
        leaf = try container.decodeValue(String.self, forKey: .leaf)
        chain = try container.decodeStrings(forKey: .chain)
        versions = try container.contains(.tlsVersion) ? container.decodeChoice(Self.versionNames, forKey: .tlsVersion) : .tls12 ... .tls13
        requireClientCertificate = try container.decodeValueIfPresent(Bool.self, forKey: .requireClientCertificate) ?? false
        forwardSecrecy = try container.decodeValueIfPresent(Bool.self, forKey: .forwardSecrecy) ?? true
        if !forwardSecrecy, versions != .tls12 ... .tls12 {
            throw DecodingError.dataCorruptedError(
                forKey: .forwardSecrecy, in: container,
                debugDescription:
                    "false needs tlsVersion \"1.2\" (every TLS 1.3 suite is forward-secret, and mitmsim offers RSA key exchange with TLS 1.2 only)")
        }
    }
}
