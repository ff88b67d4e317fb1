import Foundation

/// A TCP socket on the loopback interface, owned by this object and closed exactly once.
///
/// Every socket gets send and receive timeouts, so no read or write can hang a run, and TCP_NODELAY,
/// because a proxy that waits to coalesce small TLS records adds tens of milliseconds per request.
final class Socket: Sendable {
    let descriptor: Int32
    private let isClosed = Locked(false)

    static let defaultTimeout: TimeInterval = 5

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    /// A listening socket on 127.0.0.1; port 0 picks a free one.
    static func listen(port: UInt16) throws -> Socket {
        let socket = try Socket(descriptor: check(Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0), "socket"))
        var yes: Int32 = 1
        setsockopt(socket.descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: port)
        try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = try check(bind(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)), "bind 127.0.0.1:\(port)")
            }
        }
        _ = try check(Glibc.listen(socket.descriptor, 128), "listen")
        return socket
    }

    /// Connects to 127.0.0.1:`port`.
    static func connect(port: UInt16, timeout: TimeInterval = defaultTimeout) throws -> Socket {
        let socket = try Socket(descriptor: check(Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0), "socket"))
        socket.configure(timeout: timeout)  // the send timeout also bounds connect()
        var address = loopback(port: port)
        try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = try check(Glibc.connect(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)), "connect 127.0.0.1:\(port)")
            }
        }
        return socket
    }

    /// The next connection, or nil once `shutdown()` was called on this listening socket.
    func accept() -> Socket? {
        while true {
            let descriptor = Glibc.accept(self.descriptor, nil, nil)
            if descriptor >= 0 {
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
                let socket = Socket(descriptor: descriptor)
                socket.configure(timeout: Self.defaultTimeout)
                return socket
            }
            if errno == EINTR || errno == ECONNABORTED { continue }
            return nil
        }
    }

    private func configure(timeout: TimeInterval) {
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var yes: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    }

    var localPort: UInt16 { port(getsockname) }
    var remotePort: UInt16 { port(getpeername) }

    private func port(_ query: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let status = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { query(descriptor, $0, &length) } }
        return status == 0 ? UInt16(bigEndian: address.sin_port) : 0
    }

    /// Reads what is available (up to `count` bytes); empty means the peer closed.
    func read(upTo count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, count, 0) }
            if received >= 0 { return Array(buffer.prefix(received)) }
            if errno == EINTR { continue }
            throw NetworkError.socket(operation: "recv", reason: Self.reason(errno))
        }
    }

    /// Reads an HTTP head (through the blank line) byte by byte, so nothing after it is consumed: in
    /// HTTP CONNECT the TLS stream starts right behind it. At most 8 KiB.
    func readHTTPHead(operation: String) throws -> [UInt8] {
        var head: [UInt8] = []
        while head.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
            let byte = try read(upTo: 1)
            guard !byte.isEmpty, head.count < 8192 else {
                throw NetworkError.socket(operation: operation, reason: "the connection ended before a complete HTTP head")
            }
            head += byte
        }
        return head
    }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw NetworkError.socket(operation: "send", reason: Self.reason(errno))
            }
            offset += sent
        }
    }

    /// Wakes a thread blocked in accept() or recv() on this socket; the owner still closes it.
    func shutdown() {
        isClosed.withLock { closed in
            if !closed { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    func close() {
        isClosed.withLock { closed in
            if !closed { _ = Glibc.close(descriptor) }
            closed = true
        }
    }

    /// Waits until one of the sockets is readable (or hung up); returns their indices.
    static func waitReadable(_ sockets: [Socket], timeout: TimeInterval) -> [Int] {
        var descriptors = sockets.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(timeout * 1000))
        guard ready > 0 else { return [] }
        return descriptors.indices.filter { descriptors[$0].revents != 0 }
    }

    static func reason(_ code: Int32) -> String {
        code == EAGAIN || code == EWOULDBLOCK ? "timed out" : String(cString: strerror(code))
    }

    private static func check(_ status: Int32, _ operation: String) throws -> Int32 {
        guard status >= 0 else { throw NetworkError.socket(operation: operation, reason: reason(errno)) }
        return status
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: INADDR_LOOPBACK.bigEndian)
        return address
    }
}

/// Loopback helpers for code outside this module (benchmarks that start other tools).
package enum Loopback {
    /// A port on 127.0.0.1 that was free a moment ago: bound, read and released.
    package static func freePort() throws -> UInt16 {
        let socket = try Socket.listen(port: 0)
        defer { socket.close() }
        return socket.localPort
    }
}
