/// The IPv4 address mitmsim's servers listen on and its proxy connects upstream to.
///
/// Everything defaults to `loopback`: another address exists only when a caller parsed one from what a
/// person explicitly asked for (the lab's `--listen`), because on a LAN address anyone on the network can connect.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// 127.0.0.1.
    public static let loopback = ListenAddress(value: 0x7F00_0001)

    /// The address as a number, most significant octet first.
    private let value: UInt32

    private init(value: UInt32) { self.value = value }

    /// The address `sockaddr_in` holds (network byte order).
    init(networkOrder: UInt32) { value = UInt32(bigEndian: networkOrder) }

    /// Parses dotted-quad IPv4 ("192.168.1.20"). 0.0.0.0 is refused: it listens everywhere, and the
    /// commands the lab prints need the one address clients should use.
    public init(_ text: String) throws {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let octets = parts.compactMap { part in part.count <= 3 && part.allSatisfy({ $0.isASCII && $0.isNumber }) ? UInt8(part) : nil }
        guard parts.count == 4, octets.count == 4 else {
            throw NetworkError.invalidAddress(text, reason: "not an IPv4 address (four numbers from 0 to 255, e.g. 192.168.1.20)")
        }
        value = octets.reduce(0) { $0 << 8 | UInt32($1) }
        guard value != 0 else {
            throw NetworkError.invalidAddress(text, reason: "it means every interface; name the one address clients should connect to")
        }
    }

    /// 127.0.0.0/8: only this machine can reach it.
    public var isLoopback: Bool { value >> 24 == 127 }

    public var description: String { [24, 16, 8, 0].map { String(value >> $0 & 0xFF) }.joined(separator: ".") }

    /// The address in network byte order, as `sockaddr_in` wants it.
    var networkOrder: UInt32 { value.bigEndian }
}
