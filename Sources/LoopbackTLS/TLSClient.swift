import Foundation
import PKI

/// The app's networking stack: connects, shows the chain to a judge, and sends its request if the
/// judge accepts.
///
/// It knows no policy. The judge gets the chain as a `ServerTrust` (the device trust store as anchors,
/// the host, the clock), just as NSURLSession hands a `SecTrustRef` to the app's delegate, with the version
/// and suite the handshake settled; a rejection aborts the handshake with a `bad_certificate` alert, as
/// cancelling the challenge does, or with `protocol_version` when the judge refused the negotiated version, as
/// a client whose floor is above it does. A plain HTTP exchange (`exchangePlainHTTP`) has nothing to judge.
public final class TLSClient: Sendable {
    /// What the judge decided, in its own terms (`Verdict`), with a sentence for the transcript.
    public struct Judgement<Verdict: Sendable>: Sendable {
        public var accept: Bool
        public var verdict: Verdict
        public var summary: String
        /// The refusal is of the TLS version the ServerHello chose, not of the chain.
        public var refusesTheVersion: Bool

        public init(accept: Bool, verdict: Verdict, summary: String, refusesTheVersion: Bool = false) {
            self.accept = accept
            self.verdict = verdict
            self.summary = summary
            self.refusesTheVersion = refusesTheVersion
        }
    }

    /// How one exchange went.
    public struct Result<Verdict: Sendable>: Sendable {
        /// Nil when the handshake failed before the chain was judged, and for plain HTTP.
        public var verdict: Verdict?
        /// False when it failed, and for plain HTTP, which has none.
        public var handshakeCompleted: Bool
        /// The server asked for a client certificate (a CertificateRequest arrived), whether or not the
        /// handshake then completed.
        public var certificateRequested: Bool
        public var response: HTTPMessage?
        /// Why the exchange did not complete.
        public var failure: String?
    }

    /// How the client reaches the server.
    public enum Route: Sendable {
        /// Straight to `port` (possibly the attacker's, if the network routes the host there).
        case direct(port: UInt16)
        /// Through an HTTP proxy at `port` with `CONNECT host:443`, as a configured system proxy.
        case httpProxy(port: UInt16)
    }

    public let host: String
    public let trustStore: DeviceTrustStore
    public let verifyDate: Date
    /// Whose trust rules the judge's `ServerTrust` applies.
    public let platform: Platform
    private let context: TLSContext

    /// - Parameter identity: a client certificate to present when the server asks (two-way TLS).
    /// - Parameter versions: nil offers `TLSVersion.supported(allowsWeakCryptography:)`.
    /// - Parameter allowsWeakCryptography: negotiate TLS 1.0 and 1.1 and accept an RSA-1024 or SHA-1 leaf, as
    ///   the iOS TLS stack does (App Transport Security refuses them above it); off, OpenSSL's default security level.
    public init(
        host: String, trustStore: DeviceTrustStore, verifyDate: Date, platform: Platform = .iOS16, identity: Identity? = nil,
        versions: ClosedRange<TLSVersion>? = nil, allowsWeakCryptography: Bool = false, keyLog: KeyLog? = nil
    ) throws {
        self.host = host
        self.trustStore = trustStore
        self.verifyDate = verifyDate
        self.platform = platform
        context = try TLSContext(
            role: .client, versions: versions ?? TLSVersion.supported(allowsWeakCryptography: allowsWeakCryptography),
            allowsWeakCryptography: allowsWeakCryptography, keyLog: keyLog)
        context.judgeServerCertificates()
        if let identity { try context.use(identity, chain: [identity.certificate]) }
    }

    /// One exchange: connect, handshake (with the judge), send `request`, read the response, close.
    public func exchange<Verdict: Sendable>(
        _ route: Route, request: HTTPMessage, log: EventLog, judge: @escaping (ServerTrust, NegotiatedTLS) -> Judgement<Verdict>
    ) -> Result<Verdict> {
        let stream = log.makeStream(.client)
        var result = Result<Verdict>(verdict: nil, handshakeCompleted: false, certificateRequested: false, response: nil, failure: nil)
        let connection: TLSConnection
        do {
            let socket: Socket
            switch route {
            case .direct(let port):
                socket = try Socket.connect(port: port)
            case .httpProxy(let port):
                socket = try Socket.connect(port: port)
                try Self.tunnel(socket, to: host)
            }
            connection = try TLSConnection(context: context, socket: socket, stream: stream, isConnector: true, serverName: host)
        } catch {
            let failure = "could not connect: \(error)"
            result.failure = failure
            stream.record(.handshakeFailed(reason: failure))
            return result
        }
        defer { connection.close() }

        connection.judge = { [host, trustStore, verifyDate, platform] chain, negotiated in
            let trust = ServerTrust(
                certificates: chain, deviceTrustStore: trustStore, policy: .ssl(host: host), verifyDate: verifyDate, platform: platform)
            let judgement = judge(trust, negotiated)
            result.verdict = judgement.verdict
            stream.record(.judged(accepted: judgement.accept, chain: chain.map(\.label), summary: judgement.summary))
            return judgement.accept ? .accept : judgement.refusesTheVersion ? .refuseVersion : .refuseChain
        }
        let handshake = connection.handshake()
        result.certificateRequested = connection.certificateRequested
        if case .failed(let reason) = handshake {
            result.failure = reason
            stream.record(.handshakeFailed(reason: reason))
            return result
        }
        result.handshakeCompleted = true
        connection.recordCompletedHandshake()
        Self.send(request, over: connection, stream: stream, into: &result)
        return result
    }

    /// One exchange in plain HTTP, without TLS: connect, send `request` readable by anyone on the path, read
    /// the response, close. Nothing is judged (there is no certificate), so `verdict` stays nil.
    ///
    /// Through an HTTP proxy (`.httpProxy`) the request names its whole URL (absolute-form, RFC 9112 §3.2.2),
    /// as a client configured with a proxy sends plain HTTP; straight to a port it names only the path.
    public func exchangePlainHTTP<Verdict: Sendable>(_ route: Route, request: HTTPMessage, log: EventLog) -> Result<Verdict> {
        let stream = log.makeStream(.client)
        var result = Result<Verdict>(verdict: nil, handshakeCompleted: false, certificateRequested: false, response: nil, failure: nil)
        stream.record(.plainHTTP(host: host))
        var request = request
        let port: UInt16
        switch route {
        case .direct(let direct):
            port = direct
        case .httpProxy(let proxy):
            port = proxy
            let parts = request.startLine.split(separator: " ", maxSplits: 2)
            if parts.count == 3, parts[1].hasPrefix("/") { request.startLine = "\(parts[0]) http://\(host)\(parts[1]) \(parts[2])" }
        }
        let connection: PlainConnection
        do {
            connection = PlainConnection(socket: try Socket.connect(port: port), stream: stream, isConnector: true)
        } catch {
            result.failure = "could not connect: \(error)"
            stream.record(.connectionFailed(reason: "\(error)"))
            return result
        }
        defer { connection.close() }
        Self.send(request, over: connection, stream: stream, into: &result)
        return result
    }

    /// Sends `request` on an established connection and reads the response into `result`.
    private static func send<Verdict>(_ request: HTTPMessage, over connection: some HTTPConnection, stream: EventStream, into result: inout Result<Verdict>) {
        do {
            try connection.write(request.serialized[...], summary: request.summary)
            // As long as the bank's longest download; the server is the lesson's own.
            let framing = HTTPFraming(role: .response, longestBody: 256 << 20)
            guard let response = try framing.readMessage(from: { try connection.read() }) else {
                result.failure = "the server closed the connection without a response"
                stream.record(.peerVanished(during: "the response"))
                return
            }
            result.response = response
            stream.record(.responseReceived(summary: response.summary))
        } catch {
            result.failure = "\(error)"
            stream.record(.peerVanished(during: "the exchange: \(error)"))
        }
    }

    /// HTTP CONNECT: ask the proxy for a tunnel to `host`:443 and wait for its 200.
    static func tunnel(_ socket: Socket, to host: String) throws {
        try socket.write(Array("CONNECT \(host):443 HTTP/1.1\r\nHost: \(host):443\r\n\r\n".utf8))
        let framing = HTTPFraming(role: .response, longestBody: HTTPFraming.longestBody, answering: "CONNECT")
        guard let head = try framing.readHead(from: socket, before: HTTPFraming.deadlineFromNow) else {
            throw NetworkError.socket(operation: "CONNECT", reason: "the connection ended before a complete HTTP head")
        }
        guard head.startLine.hasPrefix("HTTP/1.1 200") else {
            throw NetworkError.socket(operation: "CONNECT", reason: "the proxy refused: \(head.startLine.prefix(60))")
        }
    }
}
