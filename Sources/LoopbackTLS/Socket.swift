import Foundation

/// A TCP socket (on 127.0.0.1 unless a caller chose another `ListenAddress`), owned by this object and
/// closed exactly once.
///
/// Every socket gets send and receive timeouts, so no read or write can hang a run, and TCP_NODELAY,
/// because a proxy that waits to coalesce small TLS records adds tens of milliseconds per request.
final class Socket: Sendable {
    let descriptor: Int32
    /// Who connected, for a socket `accept()` returned; nil for the others.
    let peer: ListenAddress?
    private let isClosed = Locked(false)
    private let readDeadline = Locked<ContinuousClock.Instant?>(nil)
    /// The receive timeout last set (0: none yet).
    private let receiveTimeout = Locked<TimeInterval>(0)

    static let defaultTimeout: TimeInterval = 5

    private init(descriptor: Int32, peer: ListenAddress? = nil) {
        self.descriptor = descriptor
        self.peer = peer
    }

    deinit { close() }

    /// A listening socket on `address`; port 0 picks a free one.
    static func listen(address: ListenAddress = .loopback, port: UInt16) throws -> Socket {
        let socket = try Socket(descriptor: check(Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0), "socket"))
        var yes: Int32 = 1
        setsockopt(socket.descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = socketAddress(address, port: port)
        try withUnsafePointer(to: &socketAddress) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                guard bind(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 else {
                    let reason = errno == EADDRNOTAVAIL ? "\(address) is not an address of this machine" : Self.reason(errno)
                    throw NetworkError.socket(operation: "bind \(address):\(port)", reason: reason)
                }
            }
        }
        _ = try check(Glibc.listen(socket.descriptor, 128), "listen")
        return socket
    }

    /// Connects to `address`:`port`.
    static func connect(address: ListenAddress = .loopback, port: UInt16, timeout: TimeInterval = defaultTimeout) throws -> Socket {
        let socket = try Socket(descriptor: check(Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0), "socket"))
        socket.configure(timeout: timeout)  // the send timeout also bounds connect()
        var socketAddress = socketAddress(address, port: port)
        try withUnsafePointer(to: &socketAddress) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = try check(Glibc.connect(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)), "connect \(address):\(port)")
            }
        }
        return socket
    }

    /// The next connection, or nil once `shutdown()` was called on this listening socket.
    ///
    /// Throws when the system is short of what a connection needs (descriptors, buffers, memory): the
    /// listening socket still works, the connection waits in its queue, and a later call may take it.
    func accept() throws -> Socket? {
        while true {
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let descriptor = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(self.descriptor, $0, &length) }
            }
            if descriptor >= 0 {
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
                let socket = Socket(descriptor: descriptor, peer: ListenAddress(networkOrder: address.sin_addr.s_addr))
                socket.configure(timeout: Self.defaultTimeout)
                return socket
            }
            switch errno {
            // A connection that failed before it was taken, or an interrupted call: take the next one
            // (accept(2) asks Linux callers to retry on the network errors too).
            case EINTR, ECONNABORTED, EPROTO, EPERM, ENETDOWN, ENETUNREACH, ENONET, EHOSTDOWN, EHOSTUNREACH, ENOPROTOOPT, EOPNOTSUPP:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                throw NetworkError.socket(operation: "accept", reason: Self.reason(errno))
            default:
                return nil  // EINVAL once shut down
            }
        }
    }

    /// When set, no read on this socket (by `read(upTo:)` or by OpenSSL, see `prepareRead()`) waits past it, however
    /// slowly the peer sends: a total deadline for an exchange, where the receive timeout bounds only each read.
    /// Cleared, each read waits `defaultTimeout` again.
    var deadline: ContinuousClock.Instant? {
        get { readDeadline.withLock { $0 } }
        set {
            readDeadline.withLock { $0 = newValue }
            if newValue == nil { setReceiveTimeout(Self.defaultTimeout) }
        }
    }

    /// Runs `read` with no read on this socket waiting past `deadline` (nor past a deadline already set);
    /// `HTTPError.tooSlow` when `read` failed because the deadline passed.
    func reading<Result>(before deadline: ContinuousClock.Instant, _ read: () throws -> Result) throws -> Result {
        let earlier = self.deadline
        self.deadline = earlier.map { min($0, deadline) } ?? deadline
        defer { self.deadline = earlier }
        do {
            return try read()
        } catch  where ContinuousClock.now >= deadline {
            throw HTTPError.tooSlow
        }
    }

    /// Before a read: lets it wait until `deadline` at most (and `defaultTimeout` at most, as always); throws
    /// "timed out" once the deadline has passed.
    func prepareRead() throws {
        guard let deadline else { return }
        let left = (deadline - .now).components
        let seconds = TimeInterval(left.seconds) + TimeInterval(left.attoseconds) * 1e-18
        // A receive timeout of zero would mean "wait for ever".
        guard seconds >= 1e-6 else { throw NetworkError.socket(operation: "recv", reason: Self.reason(EAGAIN)) }
        setReceiveTimeout(min(seconds, Self.defaultTimeout))
    }

    private func setReceiveTimeout(_ timeout: TimeInterval) {
        // Most of OpenSSL's reads ask for the timeout already set: each skips a system call.
        let changed = receiveTimeout.withLock { set in
            defer { set = timeout }
            return set != timeout
        }
        guard changed else { return }
        var limit = Self.timeval(timeout)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func timeval(_ timeout: TimeInterval) -> Glibc.timeval {
        Glibc.timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
    }

    private func configure(timeout: TimeInterval) {
        setReceiveTimeout(timeout)
        var limit = Self.timeval(timeout)
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
    func read(upTo count: Int) throws -> [UInt8] { try receive(upTo: count, flags: 0) }

    private func receive(upTo count: Int, flags: Int32) throws -> [UInt8] {
        try prepareRead()
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, count, flags) }
            if received >= 0 { return Array(buffer.prefix(received)) }
            if errno == EINTR { continue }
            throw NetworkError.socket(operation: "recv", reason: Self.reason(errno))
        }
    }

    /// What is waiting (up to `count` bytes), left waiting: the next read returns it again; empty means the peer closed.
    func peek(upTo count: Int) throws -> [UInt8] { try receive(upTo: count, flags: Int32(MSG_PEEK)) }

    /// What is available (up to `count` bytes), waiting no later than `deadline`; empty means the peer closed.
    func read(upTo count: Int, before deadline: ContinuousClock.Instant) throws -> [UInt8] {
        try wait(forWriting: false, before: deadline)
        return try read(upTo: count)
    }

    /// Waits until the socket is readable (or writable), or the peer hung up; `HTTPError.tooSlow` at `deadline`.
    func wait(forWriting: Bool, before deadline: ContinuousClock.Instant) throws {
        var descriptor = pollfd(fd: descriptor, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
        while let milliseconds = Self.milliseconds(until: deadline) {
            let ready = poll(&descriptor, 1, Int32(clamping: milliseconds))
            if ready > 0 { return }
            if ready < 0, errno != EINTR { break }
        }
        throw HTTPError.tooSlow
    }

    /// The time left until `deadline` in whole milliseconds, rounded up so that a wait for that long never ends
    /// before it (rounded down, a slow client was cut up to a millisecond early); nil once it has passed.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int64? {
        let left = ContinuousClock.now.duration(to: deadline).components
        guard left.seconds > 0 || left.attoseconds > 0 else { return nil }
        return left.seconds * 1000 + (left.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
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

    /// Sends FIN after what was written, then drains what the peer still sends: closing with unread data would
    /// send a reset, which can destroy an answer the peer has not read yet.
    func finish() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_WR))
        drain()
    }

    /// How long, in all, a connection that is done waits for its peer to close too.
    static let drainTime: Duration = .seconds(5)

    /// Reads and drops whatever the peer still sends until it closes, for `drainTime` at most in all: a peer
    /// that trickles a byte every few seconds cannot hold the connection's thread.
    func drain() {
        drain { try read(upTo: 4096) }
    }

    /// Drops what `read` returns until it returns nothing (the peer closed) or fails, for `drainTime` at most in
    /// all: every read on this socket, OpenSSL's too, waits no later than the deadline set here. A connection
    /// drains through its own `read`, so TLS sees the peer's close_notify.
    func drain(through read: () throws -> [UInt8]) {
        deadline = .now + Self.drainTime
        while let data = try? read(), !data.isEmpty {}
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

    private static func socketAddress(_ address: ListenAddress, port: UInt16) -> sockaddr_in {
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = port.bigEndian
        socketAddress.sin_addr = in_addr(s_addr: address.networkOrder)
        return socketAddress
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
