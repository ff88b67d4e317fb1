/// Broken I/O and unusable set-up in the network layer. A rejected chain or a failed handshake is
/// *not* an error: those are events and results, because they are the lesson.
public enum NetworkError: Error, Equatable, Sendable, CustomStringConvertible {
    case socket(operation: String, reason: String)
    case tls(operation: String, details: [String])
    case notLoopback(String)

    public var description: String {
        switch self {
        case .socket(let operation, let reason): "\(operation) failed: \(reason)"
        case .tls(let operation, let details): "OpenSSL \(operation) failed" + (details.isEmpty ? "" : ": " + details.joined(separator: "; "))
        case .notLoopback(let address): "\(address) is not a loopback address: mitmsim only listens and connects on 127.0.0.1"
        }
    }
}
