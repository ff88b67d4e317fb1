/// An X.509 name such as a subject or an issuer.
///
/// Kept as the ordered list of attributes the certificate encodes, so that a parsed name prints the way
/// `openssl x509` would show it, while the common fields are one property away.
public struct DistinguishedName: Hashable, Sendable, CustomStringConvertible {
    public struct Attribute: Hashable, Sendable {
        /// The short name OpenSSL uses: "CN", "O", "OU", "C"…
        public var type: String
        public var value: String
    }

    /// In encoding order (most general first, as certificates usually are).
    public var attributes: [Attribute]

    public init(attributes: [Attribute]) {
        self.attributes = attributes
    }

    /// A name built from the fields mitmsim's specs use, encoded O, OU, CN.
    public init(commonName: String?, organization: String? = nil, organizationalUnit: String? = nil) {
        attributes = [("O", organization), ("OU", organizationalUnit), ("CN", commonName)].compactMap { type, value in
            value.map { Attribute(type: type, value: $0) }
        }
    }

    public var commonName: String? { value(of: "CN") }
    public var organization: String? { value(of: "O") }
    public var organizationalUnit: String? { value(of: "OU") }

    private func value(of type: String) -> String? { attributes.last { $0.type == type }?.value }

    /// Most specific first, as RFC 4514 writes names: "CN=bank.test, O=Example Bank".
    public var description: String {
        attributes.isEmpty ? "(empty name)" : attributes.reversed().map { "\($0.type)=\($0.value)" }.joined(separator: ", ")
    }
}
