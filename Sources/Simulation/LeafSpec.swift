import Foundation
import PKI
import Policies

public struct LeafSpec: Sendable, Decodable {
    public var id: String
    /// An authority id, or `self` for a self-signed certificate.
    public var issuer: String
    /// Defaults to the first DNS name.
    public var commonName: String?
    public var organization: String?
    /// The SAN DNS names: the only names host validation reads.
    public var dnsNames: [String]
    public var ipAddresses: [String]
    public var notBefore: Date?
    public var notAfter: Date?
    public var keyType: KeyType
    /// Reuse another leaf's key pair (a renewed or stale certificate with the same key).
    public var keyOf: String?
    /// False leaves basicConstraints, keyUsage and extendedKeyUsage out, as AFNetworking's self-signed fixtures are.
    public var extensions: Bool
    /// The digest its issuer signs it with (itself, for a self-signed leaf).
    public var signatureDigest: SignatureDigest
    /// The certificate and key read from files (`file`, `keyFile`) instead of generated; its issuer is then the
    /// authority that signed it (or `self`), and its dates are the certificate's.
    public var file: CertificateFile? = nil

    /// A leaf as a file would declare it, for worlds built in code (the matrix's attackers).
    public init(
        id: String, issuer: String, commonName: String? = nil, organization: String? = nil, dnsNames: [String] = [],
        ipAddresses: [String] = [], notBefore: Date? = nil, notAfter: Date? = nil, keyType: KeyType = .p256, keyOf: String? = nil,
        extensions: Bool = true, signatureDigest: SignatureDigest = .sha256
    ) {
        self.id = id
        self.issuer = issuer
        self.commonName = commonName
        self.organization = organization
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.keyType = keyType
        self.keyOf = keyOf
        self.extensions = extensions
        self.signatureDigest = signatureDigest
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, issuer, commonName, organization, dnsNames, ipAddresses, notBefore, notAfter, keyType, keyOf, extensions, signatureDigest, file, keyFile
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        id = try container.decodeValue(String.self, forKey: .id)
        file = try CertificateFile.decode(
            container, file: .file, keyFile: .keyFile,
            generated: [.commonName, .organization, .dnsNames, .ipAddresses, .notBefore, .notAfter, .keyType, .keyOf, .extensions, .signatureDigest],
            userInfo: decoder.userInfo)
        // A certificate read from a file names its issuer itself; `WorldSpec` finds that authority.
        issuer = try file == nil ? container.decodeValue(String.self, forKey: .issuer) : container.decodeValueIfPresent(String.self, forKey: .issuer) ?? ""
        commonName = try container.decodeValueIfPresent(String.self, forKey: .commonName)
        organization = try container.decodeValueIfPresent(String.self, forKey: .organization)
        dnsNames = try container.decodeStrings(forKey: .dnsNames)
        ipAddresses = try container.decodeStrings(forKey: .ipAddresses)
        notBefore = try container.decodeTimeIfPresent(forKey: .notBefore)
        notAfter = try container.decodeTimeIfPresent(forKey: .notAfter)
        keyType = try container.contains(.keyType) ? container.decodeChoice(KeyType.choices, forKey: .keyType) : .p256
        keyOf = try container.decodeValueIfPresent(String.self, forKey: .keyOf)
        extensions = try container.decodeValueIfPresent(Bool.self, forKey: .extensions) ?? true
        signatureDigest = try container.contains(.signatureDigest) ? container.decodeChoice(SignatureDigest.choices, forKey: .signatureDigest) : .sha256
        if let certificate = file?.certificate { (notBefore, notAfter) = (certificate.notBefore, certificate.notAfter) }
    }
}
