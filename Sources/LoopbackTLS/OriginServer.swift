import PKI

/// The real server: HTTPS (on 127.0.0.1 unless told otherwise) with a certificate chain from the lesson's world, serving `application`.
public final class OriginServer: Sendable {
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
        /// After each response (whose `Connection: close` header announces it), close at once with
        /// close_notify, as HTTP requires and as real clients that read to the end of the stream need.
        /// Off, the server waits for the client to close first: lesson runs keep it off, because their
        /// client always closes first then, so every transcript ends the same way.
        public var closesAfterResponse: Bool
        /// How many of the latest requests `requestsReceived` keeps: nil keeps all (a lesson's few); a server
        /// that runs all day (a live lab) keeps a window.
        public var keptRequests: Int?

        public init(
            application: any HTTPApplication, identity: Identity, chain: [Certificate], versions: ClosedRange<TLSVersion> = .tls12 ... .tls13,
            clientAuthorities: [Certificate]? = nil, sessionTickets: Int = 0, closesAfterResponse: Bool = false, keptRequests: Int? = nil
        ) {
            self.application = application
            self.identity = identity
            self.chain = chain
            self.versions = versions
            self.clientAuthorities = clientAuthorities
            self.sessionTickets = sessionTickets
            self.closesAfterResponse = closesAfterResponse
            self.keptRequests = keptRequests
        }
    }

    private let service: OriginService
    private let listener: Listener

    /// Starts listening at once on `address`; `port` 0 picks a free port.
    public init(_ configuration: Configuration, log: EventLog, keyLog: KeyLog? = nil, address: ListenAddress = .loopback, port: UInt16 = 0) throws {
        let context = try TLSContext(role: .server, versions: configuration.versions, keyLog: keyLog)
        try context.use(configuration.identity, chain: configuration.chain)
        if let authorities = configuration.clientAuthorities { try context.requireClientCertificates(issuedBy: authorities) }
        if configuration.sessionTickets > 0 { try context.sendSessionTickets(configuration.sessionTickets) }
        log.register(configuration.chain + [configuration.identity.certificate] + (configuration.clientAuthorities ?? []))
        let service = OriginService(
            context: context, application: configuration.application, log: log, closesAfterResponse: configuration.closesAfterResponse,
            keptRequests: configuration.keptRequests)
        self.service = service
        // The handler holds the service, never the server: a server dropped while a connection arrives
        // stops its listener (joining that connection's thread) while the service stays alive for it.
        listener = try Listener(address: address, port: port) { [service] socket, _ in service.serve(socket) }
    }

    public var port: UInt16 { listener.port }

    /// "POST /login" for every request that reached the application (the latest `keptRequests`), in arrival order.
    public var requestsReceived: [String] { service.requestsReceived }

    /// Stops listening and joins every thread; open connections are cut.
    public func stop() { listener.stop() }
}
