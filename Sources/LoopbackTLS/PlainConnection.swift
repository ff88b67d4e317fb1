/// One end of a TCP connection that carries HTTP without TLS, reporting into an `EventStream` as
/// `TLSConnection` does: what this end sends is an event (readable by anyone on the path), what it
/// receives is counted, so the merged log keeps cause before effect.
final class PlainConnection: HTTPConnection {
    let socket: Socket
    private let stream: EventStream
    private let isConnector: Bool
    private lazy var connection = stream.eventLog.connection(of: socket, isConnector: isConnector)

    /// - Parameter peer: who is at the other end, when the caller knows (the proxy does; a client does not).
    init(socket: Socket, stream: EventStream, isConnector: Bool, peer: NetworkEvent.Actor? = nil) {
        self.socket = socket
        self.stream = stream
        self.isConnector = isConnector
        if let peer { stream.eventLog.noteIntendedReceiver(peer, of: channel(outgoing: true)) }
    }

    private func channel(outgoing: Bool) -> Channel {
        Channel(connection: connection, fromConnector: outgoing == isConnector, unit: .bytes)
    }

    /// What is available; empty when the peer closed.
    func read() throws -> [UInt8] {
        let data = try socket.read(upTo: 16_384)
        noteReceived(data.count)
        return data
    }

    /// Counts bytes of this connection that were read straight from its socket (a head the proxy read before
    /// it knew it would relay).
    func noteReceived(_ count: Int) {
        if count > 0 { stream.noteReceived(channel(outgoing: false), count) }
    }

    /// What is available, waiting no later than `deadline`; empty when the peer closed.
    func read(before deadline: ContinuousClock.Instant) throws -> [UInt8] {
        let data = try socket.read(upTo: 16_384, before: deadline)
        noteReceived(data.count)
        return data
    }

    /// Sends data in the clear; `summary` says what it is ("HTTP request POST /login").
    func write(_ bytes: ArraySlice<UInt8>, summary: String) throws {
        try write(bytes, announcing: (summary, bytes.count))
    }

    /// Sends data in the clear. `message` announces what starts here and how long all of it is; nil continues the last one.
    func write(_ bytes: ArraySlice<UInt8>, announcing message: (summary: String, length: Int)?) throws {
        if let message {
            stream.record(.unencryptedData(bytes: message.length, summary: message.summary), sent: (channel(outgoing: true), message.length))
        }
        try socket.write(Array(bytes))
    }

    /// Closes the socket, first waiting (when `finishing`) until the peer closes too, as `TLSConnection.close` does.
    func close(finishing: Bool = false) {
        if finishing { socket.finish() }
        socket.close()
    }
}

/// One end of a connection that carries HTTP, over TLS or in the clear: what the origin and the client do
/// once a connection is up does not depend on which.
protocol HTTPConnection: AnyObject {
    /// The TCP connection underneath.
    var socket: Socket { get }
    /// What is available; empty when the peer closed.
    func read() throws -> [UInt8]
    /// What is available, waiting no later than `deadline` (`HTTPError.tooSlow` then); empty when the peer closed.
    func read(before deadline: ContinuousClock.Instant) throws -> [UInt8]
    /// Sends application data; `summary` says what it is ("HTTP request POST /login").
    func write(_ bytes: ArraySlice<UInt8>, summary: String) throws
    /// Sends application data; `message` announces what starts here and how long all of it is, nil continues it.
    func write(_ bytes: ArraySlice<UInt8>, announcing message: (summary: String, length: Int)?) throws
    /// Closes the connection, first waiting (when `finishing`) until the peer closes too.
    func close(finishing: Bool)
}

extension TLSConnection: HTTPConnection {}
