internal import COpenSSL

/// The TLS versions a lesson can pin a server to.
public enum TLSVersion: String, Hashable, Sendable, CaseIterable, Comparable {
    case tls12 = "TLS 1.2"
    case tls13 = "TLS 1.3"

    var openSSLValue: Int { self == .tls12 ? Int(TLS1_2_VERSION) : Int(TLS1_3_VERSION) }

    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.openSSLValue < rhs.openSSLValue }

    /// "TLS 1.3" for 0x0304 and friends; what a ClientHello offers or a ServerHello picks.
    static func name(wire: UInt16) -> String {
        switch wire {
        case 0x0304: "TLS 1.3"
        case 0x0303: "TLS 1.2"
        case 0x0302: "TLS 1.1"
        case 0x0301: "TLS 1.0"
        default: "0x" + String(wire, radix: 16)
        }
    }
}
