/// One end of a TCP connection that carries HTTP without TLS, reporting into an `EventStream` as
/// `TLSConnection` does: what this end sends is an event (readable by anyone on the path), what it
/// receives is counted, so the merged log keeps cause before effect.
final class PlainConnection: HTTPConnection {
    let socket: Socket
    private let stream: EventStream
    private let isConnector: Bool
    private lazy var connection = stream.eventLog.connection(of: socket, isConnector: isConnector)

    /// The most a whole message may take (a head and a body as `HTTPMessage.read` allows them).
    static let longestMessage = (64 << 10) + (1 << 20)

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

    /// One whole HTTP message as it arrived (head, then as many body bytes as its `Content-Length` says),
    /// of which `prefix` was read already; nil when the peer closed before it was complete.
    func readMessage(after prefix: [UInt8] = []) throws -> [UInt8]? {
        var message = prefix
        while true {
            if let headEnd = HTTPHeadBytes.firstRange(of: [13, 10, 13, 10], in: message[...]) {
                let length = headEnd.upperBound + (HTTPHeadBytes.contentLength(message[..<headEnd.lowerBound]) ?? 0)
                guard length <= Self.longestMessage else { throw HTTPError.malformed("a message of \(length) bytes is over the limit") }
                if message.count >= length { return Array(message.prefix(length)) }
            } else if message.count > Self.longestMessage {
                throw HTTPError.malformed("no end of the head in \(message.count) bytes")
            }
            let chunk = try read()
            if chunk.isEmpty { return nil }
            message += chunk
        }
    }

    /// Sends data in the clear; `summary` says what it is ("HTTP request POST /login").
    func write(_ bytes: ArraySlice<UInt8>, summary: String) throws {
        stream.record(.unencryptedData(bytes: bytes.count, summary: summary), sent: (channel(outgoing: true), bytes.count))
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
    /// What is available; empty when the peer closed.
    func read() throws -> [UInt8]
    /// Sends application data; `summary` says what it is ("HTTP request POST /login").
    func write(_ bytes: ArraySlice<UInt8>, summary: String) throws
    /// Closes the connection, first waiting (when `finishing`) until the peer closes too.
    func close(finishing: Bool)
}

extension TLSConnection: HTTPConnection {}
