import Policies

/// `client.networkSecurityConfig`: the app's `network_security_config.xml` `<base-config>`, beyond the pin-set a
/// lesson's pins give. Only the Network Security Config model (`android-nsc`) reads it; the OkHttp models run
/// without a Network Security Config file.
public struct NetworkSecurityConfigLessonOptions: LessonOptions {
    public static let key = "networkSecurityConfig"

    /// `<trust-anchors>` of the base-config, as `<certificates src>` values (`system`, `user`); nil keeps the
    /// platform default.
    public var trustAnchors: [NetworkSecurityConfig.CertificatesEntry]?
    /// `<certificateTransparency enabled>` of the base-config; nil when the element is left out.
    public var certificateTransparency: Bool?

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable { case trustAnchors, certificateTransparency }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        let sources = ["system": NetworkSecurityConfig.CertificatesEntry.Source.system, "user": .user]
        trustAnchors = try container.decodeValueIfPresent([String].self, forKey: .trustAnchors)?.map { src in
            guard let source = sources[src] else {
                throw DecodingError.dataCorruptedError(
                    forKey: .trustAnchors, in: container, debugDescription: "expected system or user (the <certificates src> a lesson can name), found '\(src)'"
                )
            }
            return NetworkSecurityConfig.CertificatesEntry(source)
        }
        certificateTransparency = try container.decodeValueIfPresent(Bool.self, forKey: .certificateTransparency)
    }

    /// The base-config these options write; nil when they write none.
    var baseConfig: NetworkSecurityConfig.BaseConfig? {
        trustAnchors == nil && certificateTransparency == nil
            ? nil : NetworkSecurityConfig.BaseConfig(trustAnchors: trustAnchors, certificateTransparency: certificateTransparency)
    }
}
