/// What an `OriginServer` does with each connection: handshake (unless it serves plain HTTP), read one
/// request, answer it.
///
/// Everything a connection needs lives here, owned by the listener's handler, so no connection can
/// outlive the state it uses, whenever the server that started it is released.
final class OriginService: Sendable {
    /// Nil for plain HTTP.
    private let context: TLSContext?
    private let app: any HTTPApplication
    private let log: EventLog
    private let received = Locked<[String]>([])
    private let closesAfterResponse: Bool
    private let keptRequests: Int?
    private let onHandshakeRefused: (@Sendable (String?) -> Void)?

    init(
        context: TLSContext?, application: any HTTPApplication, log: EventLog, closesAfterResponse: Bool, keptRequests: Int?,
        onHandshakeRefused: (@Sendable (String?) -> Void)? = nil
    ) {
        self.context = context
        self.app = application
        self.log = log
        self.closesAfterResponse = closesAfterResponse
        self.keptRequests = keptRequests
        self.onHandshakeRefused = onHandshakeRefused
    }

    /// "POST /login" for every request that reached the application (the latest `keptRequests`), in arrival order.
    var requestsReceived: [String] { received.withLock { $0 } }

    func serve(_ socket: Socket) {
        let stream = log.makeStream(.origin)
        guard let context else { return answer(over: PlainConnection(socket: socket, stream: stream, isConnector: false), stream: stream) }
        guard let connection = try? TLSConnection(context: context, socket: socket, stream: stream, isConnector: false) else { return }
        socket.deadline = .now + TLSConnection.handshakeDeadline
        switch connection.handshake() {
        case .completed:
            socket.deadline = nil
            connection.recordCompletedHandshake()
        case .failed(let reason):
            stream.record(reason == TLSConnection.peerClosed ? .peerVanished(during: "the handshake") : .handshakeFailed(reason: reason))
            // A client that never saw the certificate refused nothing (a port scan, a browser's unused preconnection).
            if connection.sentCertificate { onHandshakeRefused?(connection.receivedAlert) }
            // Stay until the peer hangs up (for a while at most), so its next read finds our alert rather than a reset.
            socket.drain()
            return
        case .pausedAtClientHello:
            preconditionFailure("the origin's context has no ClientHello callback")
        }
        answer(over: connection, stream: stream)
    }

    /// Reads one request on an established connection and answers it.
    private func answer(over connection: some HTTPConnection, stream: EventStream) {
        do {
            let deadline = HTTPFraming.deadlineFromNow
            let framing = HTTPFraming(role: .request, longestBody: HTTPFraming.longestBody)
            let request: HTTPMessage
            do {
                guard let read = try framing.readMessage(from: { try connection.read(before: deadline) }) else {
                    return stream.record(.peerVanished(during: "the request"))
                }
                request = read
            } catch let error as HTTPError {
                // Answered, so a person trying things sees why; nothing reached the application.
                let answer = error.answer
                try? connection.write(answer.serialized[...], summary: answer.summary)
                connection.close(finishing: true)
                return stream.record(.peerVanished(during: "the request: \(error)"))
            }
            let line = request.requestTarget.map { "\($0.method) \($0.path)" } ?? request.startLine
            received.withLock { received in
                received.append(line)
                if let keptRequests, received.count > keptRequests { received.removeFirst() }
            }
            stream.record(.requestReceived(summary: app.describe(request)))
            let response = app.respond(to: request)
            // In pieces, so a long generated body never lies in memory whole; one piece holds a lesson's page.
            var announcement: (summary: String, length: Int)? = (response.summary, response.serializedCount)
            try response.serialize(inPiecesOf: 1 << 16) { piece in
                try connection.write(piece[...], announcing: announcement)
                announcement = nil
            }
            if closesAfterResponse {
                connection.close(finishing: true)
            } else {
                // Waits for the peer to close before closing, so a peer still sending never meets a reset.
                connection.socket.drain(through: connection.read)
            }
        } catch {
            stream.record(.peerVanished(during: "the request: \(error)"))
        }
    }
}
