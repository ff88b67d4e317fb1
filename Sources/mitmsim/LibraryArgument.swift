import ArgumentParser
import Policies

/// `--library NAME`, as `evaluate` and `matrix` take it.
extension AFNetworkingVersion {
    /// Every release's name, newest first: "afnetworking-4, afnetworking-3.1, …, afnetworking-2.0".
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The release named `text`, or an error that lists the names (ArgumentParser's own would span lines).
    static func parse(_ text: String) throws -> AFNetworkingVersion {
        guard let version = AFNetworkingVersion(rawValue: text) else { throw ValidationError("'\(text)' is not a library mitmsim has (\(names))") }
        return version
    }

    /// Why an option for `property` (validatesDomainName or validatesCertificateChain, both new in 2.1) does
    /// not apply: "afnetworking-4 has no validatesCertificateChain (AFNetworking 2.6 removed it)".
    func lacks(_ property: String) -> String {
        "\(rawValue) has no \(property) (" + (self < .v2_1 ? "it arrived in AFNetworking 2.1" : "AFNetworking 2.6 removed it") + ")"
    }
}
