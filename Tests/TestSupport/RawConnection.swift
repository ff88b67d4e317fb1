import Foundation

/// A bare TCP connection to 127.0.0.1 that misbehaves on purpose; every read waits 15 s at most. It closes its
/// descriptor once, however often `close()` is called: a second close could close a descriptor another test has
/// opened since.
public final class RawConnection: @unchecked Sendable {
    // @unchecked: `closed` is only touched under `lock`; `descriptor` never changes.
    public let descriptor: Int32
    private let lock = NSLock()
    private var closed = false

    /// Connects to `port` on 127.0.0.1 from `source`, another loopback address (127.0.0.2, …) when a test needs
    /// clients that a server tells apart by address; nothing leaves this machine either way.
    public init(port: UInt16, from source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            closed = true
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE)
        }
        var timeout = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, source, &local.sin_addr) == 1, local.sin_addr.s_addr.bigEndian >> 24 == 127 else {
                close()
                throw POSIXError(.EINVAL)
            }
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close()
                throw POSIXError(.EADDRNOTAVAIL)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: INADDR_LOOPBACK.bigEndian)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            close()
            throw POSIXError(.ECONNREFUSED)
        }
    }

    /// Sends what it can; a server that already hung up is part of the test.
    public func send(_ bytes: [UInt8]) { _ = Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) }

    /// Half-closes: no more from this side, still reading.
    public func finishSending() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// Reads until the server closes (or the read times out); returns what it read.
    @discardableResult
    public func readToEnd() -> [UInt8] { readUntilClosed(within: 15).bytes }

    /// Reads until the server closes this connection (a read finds its end, or a reset) or `timeout` seconds
    /// pass: what it read, and whether the server closed.
    public func readUntilClosed(within timeout: TimeInterval) -> (bytes: [UInt8], closed: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while case let left = deadline.timeIntervalSinceNow, left > 0 {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left * 1000) + 1) > 0 else { break }
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard count > 0 else { return (received, true) }
            received += buffer.prefix(count)
        }
        return (received, false)
    }

    /// True once the server has closed this connection, waiting `timeout` seconds at most.
    public func closedByPeer(within timeout: TimeInterval) -> Bool { readUntilClosed(within: timeout).closed }

    /// Closes with a reset (SO_LINGER 0) instead of a FIN: the peer's next read fails.
    public func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    public func close() {
        lock.withLock {
            if !closed { Glibc.close(descriptor) }
            closed = true
        }
    }

    deinit { close() }
}
