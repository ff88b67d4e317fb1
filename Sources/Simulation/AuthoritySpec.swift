import Foundation
import PKI
import Policies

public struct AuthoritySpec: Sendable, Decodable {
    public var id: String
    /// The common name; defaults to the id.
    public var name: String
    /// Nil for a root (self-signed); otherwise the authority that signs this intermediate.
    public var issuer: String?
    public var pathLength: Int?
    /// How the device trusts it, if at all: a root built into iOS, or one the user installed.
    public var deviceTrust: DeviceTrust?
    public var keyType: KeyType
    public var notBefore: Date?
    public var notAfter: Date?
    /// The digest its issuer signs it with (itself, for a root).
    public var signatureDigest: SignatureDigest
    /// The certificate and key read from files (`file`, `keyFile`) instead of generated; its issuer is then the
    /// authority that signed it, and its dates are the certificate's.
    public var file: CertificateFile? = nil
    /// The Certificate Transparency logs it submits the leaves it issues to (`world.logs` ids); nil for the default:
    /// every log of the world for an authority whose root is built into iOS, none for any other.
    public var logsTo: [String]? = nil

    /// An authority as a file would declare it, for worlds built in code (the matrix's attackers).
    public init(
        id: String, name: String? = nil, issuer: String? = nil, pathLength: Int? = nil, deviceTrust: DeviceTrust? = nil,
        keyType: KeyType = .p256, notBefore: Date? = nil, notAfter: Date? = nil, signatureDigest: SignatureDigest = .sha256
    ) {
        self.id = id
        self.name = name ?? id
        self.issuer = issuer
        self.pathLength = pathLength
        self.deviceTrust = deviceTrust
        self.keyType = keyType
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.signatureDigest = signatureDigest
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, name, issuer, pathLength, deviceTrust, keyType, notBefore, notAfter, signatureDigest, file, keyFile, logsTo
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        id = try container.decodeValue(String.self, forKey: .id)
        file = try CertificateFile.decode(
            container, file: .file, keyFile: .keyFile, generated: [.name, .pathLength, .keyType, .notBefore, .notAfter, .signatureDigest],
            userInfo: decoder.userInfo)
        name = try container.decodeValueIfPresent(String.self, forKey: .name) ?? id
        issuer = try container.decodeValueIfPresent(String.self, forKey: .issuer)
        pathLength = try container.decodeValueIfPresent(Int.self, forKey: .pathLength)
        if let pathLength, pathLength < 0 {
            throw DecodingError.dataCorruptedError(
                forKey: .pathLength, in: container, debugDescription: "expected 0 or more (how many CAs may follow below this one), found \(pathLength)")
        }
        deviceTrust = try container.contains(.deviceTrust) ? container.decodeChoice(DeviceTrust.choices, forKey: .deviceTrust) : nil
        keyType = try container.contains(.keyType) ? container.decodeChoice(KeyType.choices, forKey: .keyType) : .p256
        notBefore = try container.decodeTimeIfPresent(forKey: .notBefore)
        notAfter = try container.decodeTimeIfPresent(forKey: .notAfter)
        signatureDigest = try container.contains(.signatureDigest) ? container.decodeChoice(SignatureDigest.choices, forKey: .signatureDigest) : .sha256
        if let certificate = file?.certificate { (notBefore, notAfter) = (certificate.notBefore, certificate.notAfter) }
        logsTo = try container.contains(.logsTo) ? container.decodeStrings(forKey: .logsTo) : nil
    }
}
