/// An app's configuration file (a network security config, an OkHttp pin file) that a library would refuse:
/// where in the file, and why. The reader of the file names the file, so the error reads as one line.
public struct ConfigurationError: Error, Equatable, Sendable {
    /// "line 3", "line 4, <pin>", or empty for the whole file.
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// Why an IP address is refused where an audited file names a host: the certificates mitmsim generates for a
    /// host name it as a DNS name, so an address would be audited against a world it cannot stand in.
    package static func ipAddressRefusal(_ address: String) -> String {
        "'\(address)' is an IP address; mitmsim audits hosts by name (the certificates it generates for a host name it in DNS)"
    }
}
