/// A CA's nameConstraints extension, for DNS names: which hosts the CA and those below it may issue for.
public struct NameConstraints: Hashable, Sendable {
    /// When not empty, every DNS name issued below must be one of these or a subdomain of one.
    public var permittedDNSNames: [String]
    /// No DNS name issued below may be one of these or a subdomain of one.
    public var excludedDNSNames: [String]

    public init(permittedDNSNames: [String] = [], excludedDNSNames: [String] = []) {
        self.permittedDNSNames = permittedDNSNames
        self.excludedDNSNames = excludedDNSNames
    }

    /// The extension in OpenSSL configuration syntax, marked critical as RFC 5280 requires.
    var configuration: String {
        (["critical"] + permittedDNSNames.map { "permitted;DNS:" + $0 } + excludedDNSNames.map { "excluded;DNS:" + $0 })
            .joined(separator: ",")
    }
}
