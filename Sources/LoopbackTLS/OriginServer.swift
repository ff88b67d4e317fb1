import PKI

/// The real server: HTTPS on 127.0.0.1 with a certificate chain from the lesson's world, serving `application`.
public final class OriginServer: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// What answers the requests.
        public var application: any HTTPApplication
        /// Its leaf and private key.
        public var identity: Identity
        /// What it sends in its Certificate message, leaf first (usually leaf and intermediate).
        public var chain: [Certificate]
        public var versions: ClosedRange<TLSVersion>
        /// Two-way TLS: when set, every client must present a certificate issued by one of these.
        public var clientAuthorities: [Certificate]?
        /// TLS 1.3 session tickets sent after each handshake (0 in lessons: they add nothing to the story).
        public var sessionTickets: Int

        public init(application: any HTTPApplication, identity: Identity, chain: [Certificate], versions: ClosedRange<TLSVersion> = .tls12 ... .tls13,
                    clientAuthorities: [Certificate]? = nil, sessionTickets: Int = 0) {
            self.application = application
            self.identity = identity
            self.chain = chain
            self.versions = versions
            self.clientAuthorities = clientAuthorities
            self.sessionTickets = sessionTickets
        }
    }

    private let context: TLSContext
    private let app: any HTTPApplication
    private let log: EventLog
    private var listener: Listener!
    private let received = Locked<[String]>([])

    /// Starts listening at once; `port` 0 picks a free port.
    public init(_ configuration: Configuration, log: EventLog, keyLog: KeyLog? = nil, port: UInt16 = 0) throws {
        context = try TLSContext(role: .server, versions: configuration.versions, keyLog: keyLog)
        try context.use(configuration.identity, chain: configuration.chain)
        if let authorities = configuration.clientAuthorities { context.requireClientCertificates(issuedBy: authorities) }
        if configuration.sessionTickets > 0 { context.sendSessionTickets(configuration.sessionTickets) }
        app = configuration.application
        self.log = log
        log.register(configuration.chain + [configuration.identity.certificate] + (configuration.clientAuthorities ?? []))
        listener = try Listener(port: port) { [unowned self] socket in self.serve(socket) }
    }

    public var port: UInt16 { listener.port }

    /// "POST /login" for every request that reached the application, in arrival order.
    public var requestsReceived: [String] { received.withLock { $0 } }

    /// Stops listening and joins every thread; open connections are cut.
    public func stop() { listener.stop() }

    private func serve(_ socket: Socket) {
        let stream = log.makeStream(.origin)
        guard let connection = try? TLSConnection(context: context, socket: socket, stream: stream, isConnector: false) else { return }
        switch connection.handshake() {
        case .completed:
            let (version, cipher) = connection.negotiated
            stream.record(.handshakeCompleted(version: version, cipher: cipher))
        case .failed(let reason):
            stream.record(reason == TLSConnection.peerClosed ? .peerVanished(during: "the handshake") : .handshakeFailed(reason: reason))
            // Stay until the peer hangs up, so its next read finds our alert rather than a reset.
            while let data = try? socket.read(upTo: 4096), !data.isEmpty {}
            return
        case .pausedAtClientHello:
            preconditionFailure("the origin's context has no ClientHello callback")
        }
        do {
            guard let request = try HTTPMessage.read(from: { try connection.read() }) else {
                return stream.record(.peerVanished(during: "the request"))
            }
            let line = request.requestTarget.map { "\($0.method) \($0.path)" } ?? request.startLine
            received.withLock { $0.append(line) }
            stream.record(.requestReceived(summary: app.describe(request)))
            let response = app.respond(to: request)
            try connection.write(response.serialized[...], summary: response.summary)
            Self.linger(connection)
        } catch {
            stream.record(.peerVanished(during: "the request: \(error)"))
        }
    }

    /// Waits for the peer to close before closing, so a peer still sending never meets a reset.
    private static func linger(_ connection: TLSConnection) {
        while let data = try? connection.read(), !data.isEmpty {}
    }
}
