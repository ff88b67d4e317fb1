internal import COpenSSL
import PKI

/// The real server (on 127.0.0.1 unless told otherwise), serving `application`: HTTPS with a certificate chain from
/// the lesson's world, or plain HTTP.
public final class OriginServer: Sendable {
    /// How the server's connections are carried.
    public enum Transport: Sendable {
        /// HTTPS, presenting `identity`'s leaf and private key and `chain` in its Certificate message, leaf first
        /// (usually leaf and intermediate).
        case tls(identity: Identity, chain: [Certificate])
        /// Plain HTTP, no TLS at all: requests and answers cross the network readable by anyone on the path. The
        /// TLS settings of the configuration do not apply.
        case plainHTTP
    }

    public struct Configuration: Sendable {
        /// What answers the requests.
        public var application: any HTTPApplication
        public var transport: Transport
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
        /// TLS 1.0 and 1.1 in `versions`, and a leaf with an RSA-1024 key or a SHA-1 signature, need it (OpenSSL's
        /// security level 0); only lessons about servers App Transport Security refuses turn it on.
        public var allowsWeakCryptography: Bool
        /// False: the server offers only RSA key exchange (TLS_RSA_WITH_AES_128_GCM_SHA256 first), whose sessions
        /// anyone who later obtains the leaf's private key decrypts. It needs an RSA leaf and `versions` up to
        /// TLS 1.2: every TLS 1.3 suite is forward-secret.
        public var forwardSecrecy: Bool
        /// Told of each TLS handshake the client ended (with the alert it sent, if any): how a server learns that a
        /// client does not trust its certificate (the lab's trust check).
        public var onHandshakeRefused: (@Sendable (_ alert: String?) -> Void)?

        /// What it sends in its Certificate message, leaf first; empty for plain HTTP.
        public var chain: [Certificate] {
            if case .tls(_, let chain) = transport { chain } else { [] }
        }

        /// An HTTPS server presenting `identity` and `chain`.
        public init(
            application: any HTTPApplication, identity: Identity, chain: [Certificate], versions: ClosedRange<TLSVersion> = .tls12 ... .tls13,
            clientAuthorities: [Certificate]? = nil, sessionTickets: Int = 0, closesAfterResponse: Bool = false, keptRequests: Int? = nil,
            allowsWeakCryptography: Bool = false, forwardSecrecy: Bool = true
        ) {
            self.init(
                application: application, transport: .tls(identity: identity, chain: chain), closesAfterResponse: closesAfterResponse,
                keptRequests: keptRequests)
            self.versions = versions
            self.clientAuthorities = clientAuthorities
            self.sessionTickets = sessionTickets
            self.allowsWeakCryptography = allowsWeakCryptography
            self.forwardSecrecy = forwardSecrecy
        }

        /// A plain HTTP server: no TLS, nothing to present.
        public static func plainHTTP(application: any HTTPApplication, closesAfterResponse: Bool = false, keptRequests: Int? = nil) -> Configuration {
            Configuration(application: application, transport: .plainHTTP, closesAfterResponse: closesAfterResponse, keptRequests: keptRequests)
        }

        private init(application: any HTTPApplication, transport: Transport, closesAfterResponse: Bool, keptRequests: Int?) {
            self.application = application
            self.transport = transport
            self.versions = .tls12 ... .tls13
            self.clientAuthorities = nil
            self.sessionTickets = 0
            self.closesAfterResponse = closesAfterResponse
            self.keptRequests = keptRequests
            self.allowsWeakCryptography = false
            self.forwardSecrecy = true
            self.onHandshakeRefused = nil
        }
    }

    private let service: OriginService
    private let listener: Listener

    /// Starts listening at once on `address`; `port` 0 picks a free port.
    ///
    /// Throws `NetworkError.unusableConfiguration` for TLS settings OpenSSL would refuse only at the first
    /// handshake: TLS 1.0 or 1.1 without `allowsWeakCryptography`, or no forward secrecy with TLS 1.3 or a leaf
    /// whose key is not RSA.
    /// - Parameter limits: caps on the connections served at once (nil: none); `onNotice` hears what they refuse,
    ///   and when accepting fails for want of descriptors or memory and recovers.
    public init(
        _ configuration: Configuration, log: EventLog, keyLog: KeyLog? = nil, address: ListenAddress = .loopback, port: UInt16 = 0,
        limits: ConnectionLimits? = nil, onNotice: (@Sendable (ListenerNotice) -> Void)? = nil
    ) throws {
        let context: TLSContext?
        switch configuration.transport {
        case .tls(let identity, let chain):
            context = try Self.context(configuration, identity: identity, chain: chain, keyLog: keyLog)
            log.register(chain + [identity.certificate] + (configuration.clientAuthorities ?? []))
        case .plainHTTP:
            context = nil
        }
        let service = OriginService(
            context: context, application: configuration.application, log: log, closesAfterResponse: configuration.closesAfterResponse,
            keptRequests: configuration.keptRequests, onHandshakeRefused: configuration.onHandshakeRefused)
        self.service = service
        // The handler holds the service, never the server: a server dropped while a connection arrives
        // stops its listener (joining that connection's thread) while the service stays alive for it.
        listener = try Listener(address: address, port: port, limits: limits, onNotice: onNotice) { [service] socket, _ in service.serve(socket) }
    }

    private static func context(_ configuration: Configuration, identity: Identity, chain: [Certificate], keyLog: KeyLog?) throws -> TLSContext {
        if configuration.versions.lowerBound < .tls12, !configuration.allowsWeakCryptography {
            throw NetworkError.unusableConfiguration(
                "\(configuration.versions.lowerBound.rawValue) needs allowsWeakCryptography: OpenSSL 3.0 negotiates it only at security level 0")
        }
        if !configuration.forwardSecrecy {
            guard configuration.versions.upperBound < .tls13 else {
                throw NetworkError.unusableConfiguration("a server without forward secrecy must stop at TLS 1.2: every TLS 1.3 suite is forward-secret")
            }
            guard EVP_PKEY_get_base_id(identity.privateKey.pkey) == EVP_PKEY_RSA else {
                throw NetworkError.unusableConfiguration("RSA key exchange needs an RSA leaf, and '\(identity.certificate.label)' has another kind of key")
            }
        }
        let context = try TLSContext(
            role: .server, versions: configuration.versions, allowsWeakCryptography: configuration.allowsWeakCryptography, keyLog: keyLog)
        try context.use(identity, chain: chain)
        if !configuration.forwardSecrecy { try context.offerOnlyRSAKeyExchange() }
        if let authorities = configuration.clientAuthorities { try context.requireClientCertificates(issuedBy: authorities) }
        if configuration.sessionTickets > 0 { try context.sendSessionTickets(configuration.sessionTickets) }
        return context
    }

    public var port: UInt16 { listener.port }

    /// "POST /login" for every request that reached the application (the latest `keptRequests`), in arrival order.
    public var requestsReceived: [String] { service.requestsReceived }

    /// Stops listening and joins every thread; open connections are cut.
    public func stop() { listener.stop() }
}
