import Foundation

/// Everything mitmsim needs to say about a certificate before it is signed.
///
/// Extensions are optional on purpose: a lesson may need a certificate *without* basicConstraints (like
/// AFNetworking's self-signed test fixtures) or a leaf that wrongly claims to be a CA.
public struct CertificateSpec: Sendable {
    /// How traces and summaries name the certificate ("bank-leaf", "attacker-ca").
    public var label: String
    public var subject: DistinguishedName
    public var dnsNames: [String]
    public var ipAddresses: [String]
    public var notBefore: Date
    public var notAfter: Date
    /// Random (positive, 63 bits) when nil.
    public var serialNumber: UInt64?
    /// Nil leaves the extension out.
    public var basicConstraints: BasicConstraints?
    public var keyUsage: KeyUsage?
    public var extendedKeyUsage: [ExtendedKeyUsage]?
    /// Nil leaves the extension out; only meaningful on a CA.
    public var nameConstraints: NameConstraints?
    public var subjectKeyIdentifier: Bool
    public var authorityKeyIdentifier: Bool
    /// The digest the issuer signs with: SHA-256 unless a lesson shows why SHA-1 is refused.
    public var signatureDigest: SignatureDigest = .sha256

    public init(
        label: String, subject: DistinguishedName, dnsNames: [String] = [], ipAddresses: [String] = [],
        notBefore: Date, notAfter: Date, serialNumber: UInt64? = nil, basicConstraints: BasicConstraints? = nil,
        keyUsage: KeyUsage? = nil, extendedKeyUsage: [ExtendedKeyUsage]? = nil,
        nameConstraints: NameConstraints? = nil, subjectKeyIdentifier: Bool = true, authorityKeyIdentifier: Bool = true
    ) {
        self.label = label
        self.subject = subject
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.serialNumber = serialNumber
        self.basicConstraints = basicConstraints
        self.keyUsage = keyUsage
        self.extendedKeyUsage = extendedKeyUsage
        self.nameConstraints = nameConstraints
        self.subjectKeyIdentifier = subjectKeyIdentifier
        self.authorityKeyIdentifier = authorityKeyIdentifier
    }

    /// What the factory writes into a SAN DNS entry, in words for error messages.
    public static let dnsNameCharacters = "letters, digits, '.', '-', '_' and a leading '*.' only"

    /// True for a name the factory can put in a SAN DNS entry.
    public static func isDNSName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || ".-_*".unicodeScalars.contains($0)) }
    }

    /// True for an IPv4 or IPv6 address the factory can put in a SAN IP entry.
    public static func isIPAddress(_ text: String) -> Bool { IPAddress.isAddress(text) }

    /// A certificate authority (root or intermediate): CA:TRUE, keyCertSign and cRLSign.
    public static func authority(
        label: String, commonName: String, organization: String? = nil, pathLength: Int? = nil,
        notBefore: Date, notAfter: Date
    ) -> CertificateSpec {
        CertificateSpec(
            label: label, subject: DistinguishedName(commonName: commonName, organization: organization),
            notBefore: notBefore, notAfter: notAfter, basicConstraints: .authority(pathLength: pathLength),
            keyUsage: [.keyCertSign, .cRLSign])
    }

    /// A TLS server leaf: CA:FALSE, digitalSignature, serverAuth, names in the SAN (the CN is informational).
    public static func serverLeaf(
        label: String, commonName: String? = nil, organization: String? = nil, dnsNames: [String], ipAddresses: [String] = [],
        notBefore: Date, notAfter: Date
    ) -> CertificateSpec {
        CertificateSpec(
            label: label, subject: DistinguishedName(commonName: commonName ?? dnsNames.first, organization: organization),
            dnsNames: dnsNames, ipAddresses: ipAddresses, notBefore: notBefore, notAfter: notAfter,
            basicConstraints: .endEntity, keyUsage: [.digitalSignature], extendedKeyUsage: [.serverAuth])
    }
}

public enum SignatureDigest: String, Hashable, Sendable {
    case sha256
    /// Not accepted in a TLS chain by iOS 13 and later.
    case sha1
}

public enum BasicConstraints: Hashable, Sendable {
    case authority(pathLength: Int?)
    case endEntity
}

/// The keyUsage bits lessons care about.
public struct KeyUsage: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let digitalSignature = KeyUsage(rawValue: 1 << 0)
    public static let keyEncipherment = KeyUsage(rawValue: 1 << 1)
    public static let keyCertSign = KeyUsage(rawValue: 1 << 2)
    public static let cRLSign = KeyUsage(rawValue: 1 << 3)

    /// OpenSSL configuration names, in a fixed order.
    var names: [String] {
        [
            (Self.digitalSignature, "digitalSignature"), (.keyEncipherment, "keyEncipherment"), (.keyCertSign, "keyCertSign"),
            (.cRLSign, "cRLSign"),
        ].compactMap { contains($0.0) ? $0.1 : nil }
    }
}

public enum ExtendedKeyUsage: String, Hashable, Sendable {
    case serverAuth
    case clientAuth
    /// Any purpose (2.5.29.37.0); some CAs carry it as their only extended key usage.
    case anyExtendedKeyUsage
}
