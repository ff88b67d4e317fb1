import Foundation

/// Conversions between IP address text and the bytes a SAN stores.
package enum IPAddress {
    /// The 4 or 16 bytes of `text` when `inet_pton` reads it as IPv4 (dotted quad only) or IPv6, else nil.
    package static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    static func text(_ bytes: [UInt8]) -> String {
        let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : -1
        guard family != -1 else { return bytes.hexString }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, bytes, &buffer, socklen_t(buffer.count)) != nil else { return bytes.hexString }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func isAddress(_ text: String) -> Bool { bytes(text) != nil }
}
