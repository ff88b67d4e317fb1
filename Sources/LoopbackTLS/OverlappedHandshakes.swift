import Foundation

/// Several handshakes driven at once by one thread: each steps as far as its socket allows, and the thread waits
/// for whichever socket is ready next. The proxy runs its handshake with the real server this way while it
/// greets the client, so a connection waits for the longer of the two instead of their sum, and needs no
/// second thread (a new thread would pay for a fresh allocator cache, see `Listener`).
///
/// The first pass only sends: every connection's first flight leaves before any reply is read. Otherwise a reply
/// that is already waiting when the first connection reads (the server answered while this thread was not running)
/// would be processed first, and the proxy would parse the server's certificates and finish with it while the client
/// still waits for its ServerHello.
enum OverlappedHandshakes {
    /// Runs every connection's handshake to its end: completed, failed, or failed as timed out at `deadline`.
    /// The sockets do not block meanwhile and block again (with their timeouts) afterwards.
    static func run(_ connections: [TLSConnection], before deadline: ContinuousClock.Instant) -> [TLSConnection.HandshakeResult] {
        let flags = connections.map { fcntl($0.socket.descriptor, F_GETFL) }
        for (connection, flag) in zip(connections, flags) { _ = fcntl(connection.socket.descriptor, F_SETFL, flag | O_NONBLOCK) }
        defer { for (connection, flag) in zip(connections, flags) { _ = fcntl(connection.socket.descriptor, F_SETFL, flag) } }

        var results = [TLSConnection.HandshakeResult?](repeating: nil, count: connections.count)
        var waiting: [(index: Int, forWriting: Bool)] = []
        var ready = Array(connections.indices)
        var firstPass = true
        while true {
            for index in ready {
                switch connections[index].handshakeStep(sendingOnly: firstPass) {
                case .done(let result): results[index] = result
                case .wantsRead: waiting.append((index, false))
                case .wantsWrite: waiting.append((index, true))
                }
            }
            firstPass = false
            guard !waiting.isEmpty else { break }
            ready = wait(for: waiting, in: connections, before: deadline)
            guard !ready.isEmpty else {
                for (index, _) in waiting { results[index] = .failed(Socket.reason(EAGAIN)) }
                break
            }
            waiting.removeAll { ready.contains($0.index) }
        }
        return results.map { $0 ?? .failed(Socket.reason(EAGAIN)) }
    }

    /// The indices of the waiting connections whose sockets are ready (or hung up); empty once `deadline` passed.
    private static func wait(
        for waiting: [(index: Int, forWriting: Bool)], in connections: [TLSConnection], before deadline: ContinuousClock.Instant
    ) -> [Int] {
        var descriptors = waiting.map { pollfd(fd: connections[$0.index].socket.descriptor, events: Int16($0.forWriting ? POLLOUT : POLLIN), revents: 0) }
        while let milliseconds = Socket.milliseconds(until: deadline) {
            let count = poll(&descriptors, nfds_t(descriptors.count), Int32(clamping: milliseconds))
            if count > 0 { return descriptors.indices.filter { descriptors[$0].revents != 0 }.map { waiting[$0].index } }
            if count < 0, errno != EINTR { return [] }
        }
        return []
    }
}
