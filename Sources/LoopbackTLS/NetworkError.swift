/// Broken I/O and unusable set-up in the network layer. A rejected chain or a failed handshake is
/// *not* an error: those are events and results, because they are the lesson.
public enum NetworkError: Error, Equatable, Sendable, CustomStringConvertible {
    case socket(operation: String, reason: String)
    case tls(operation: String, details: [String])
    /// An address to listen on that cannot be used, with why.
    case invalidAddress(String, reason: String)
    /// Settings an endpoint cannot be set up with, with why.
    case unusableConfiguration(String)

    public var description: String {
        switch self {
        case .socket(let operation, let reason): "\(operation) failed: \(reason)"
        case .tls(let operation, let details): "OpenSSL \(operation) failed" + (details.isEmpty ? "" : ": " + details.joined(separator: "; "))
        case .invalidAddress(let address, let reason): "'\(address)' cannot be listened on: \(reason)"
        case .unusableConfiguration(let reason): "unusable TLS settings: \(reason)"
        }
    }
}
