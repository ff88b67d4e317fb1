internal import COpenSSL

/// A TLS protocol version: what a server may be pinned to, what a handshake settled, and what App
/// Transport Security asks for. In `PKI` because both the TLS layer and the client policies speak it.
public enum TLSVersion: String, Hashable, Sendable, CaseIterable, Comparable {
    /// Only for lessons about servers App Transport Security refuses (OpenSSL allows it at security level 0 only).
    case tls10 = "TLS 1.0"
    case tls11 = "TLS 1.1"
    case tls12 = "TLS 1.2"
    case tls13 = "TLS 1.3"

    package var openSSLValue: Int {
        switch self {
        case .tls10: Int(TLS1_VERSION)
        case .tls11: Int(TLS1_1_VERSION)
        case .tls12: Int(TLS1_2_VERSION)
        case .tls13: Int(TLS1_3_VERSION)
        }
    }

    /// The version OpenSSL reports (`SSL_version`), nil for one mitmsim never offers (SSL 3.0, DTLS).
    package init?(openSSLValue: Int) {
        guard let version = Self.allCases.first(where: { $0.openSSLValue == openSSLValue }) else { return nil }
        self = version
    }

    /// What an endpoint offers unless told otherwise: TLS 1.2 and 1.3, or from TLS 1.0 on when it allows weak
    /// cryptography (as the iOS TLS stack does: App Transport Security, not the stack, refuses older versions).
    public static func supported(allowsWeakCryptography: Bool) -> ClosedRange<TLSVersion> {
        allowsWeakCryptography ? .tls10 ... .tls13 : .tls12 ... .tls13
    }

    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.openSSLValue < rhs.openSSLValue }

    /// "TLS 1.3" for 0x0304 and friends; what a ClientHello offers or a ServerHello picks.
    package static func name(wire: UInt16) -> String {
        TLSVersion(openSSLValue: Int(wire))?.rawValue ?? "0x" + String(wire, radix: 16)
    }
}
