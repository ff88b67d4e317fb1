import Foundation
import PKI

/// What an `InterceptingProxy` does with each connection: terminate TLS and forge, or pass it through.
///
/// Everything a connection needs lives here, owned by the listener's handler, so no connection can
/// outlive the state it uses, whenever the proxy that started it is released.
final class Interception: Sendable {
    private let attack: Attack
    private let routes: [String: UInt16]
    private let upstreamAddress: ListenAddress
    private let defaultHost: String?
    private let site: (any HTTPApplication)?
    private let log: EventLog
    private let factory: CertificateFactory
    private let downstream: TLSContext
    private let upstream: TLSContext
    private let forgeries = Locked<[String: Identity]>([:])
    /// What was presented for each routed host (bounded by the routes), for attacks that forge from the real leaf.
    private let cachedForgeries = Locked<[String: CachedForgery]>([:])
    /// Sessions the real servers issued, a few per routed host, each offered once, when a cached forgery is presented:
    /// a resumed upstream handshake carries no certificate to parse or check (as sslsplit caches its upstream sessions).
    private let sessions = Locked<[String: [TLSSession]]>([:])
    static let sessionsPerHost = 4
    private let recorded = Locked<[InterceptedFlow]>([])
    private let keepsFlows: Bool
    private let onFlowEnd: (@Sendable (InterceptedFlow) -> Void)?

    init(
        attack: Attack, routes: [String: UInt16], upstream upstreamAddress: ListenAddress, defaultHost: String?, site: (any HTTPApplication)?,
        log: EventLog, factory: CertificateFactory, keyLog: KeyLog?, allowsWeakCryptography: Bool, keepsFlows: Bool,
        onFlowEnd: (@Sendable (InterceptedFlow) -> Void)?
    ) throws {
        self.keepsFlows = keepsFlows
        self.onFlowEnd = onFlowEnd
        self.attack = attack
        self.routes = routes
        self.upstreamAddress = upstreamAddress
        self.defaultHost = defaultHost
        self.site = site
        self.log = log
        self.factory = factory
        let versions = TLSVersion.supported(allowsWeakCryptography: allowsWeakCryptography)
        downstream = try TLSContext(role: .server, versions: versions, allowsWeakCryptography: allowsWeakCryptography, keyLog: keyLog)
        downstream.pauseAtClientHello()
        upstream = try TLSContext(role: .client, versions: versions, allowsWeakCryptography: allowsWeakCryptography, keyLog: keyLog)
        upstream.takeServerCertificatesUnjudged()
        upstream.handNewSessionsToConnections()
        switch attack {
        case .forge(let authority), .misissued(let authority), .misissuedLogged(let authority, _, _): log.register([authority.certificate])
        case .present(let chain, _, _): log.register(chain)
        default: break
        }
    }

    /// Every connection handled so far (none when it keeps no flows).
    var flows: [InterceptedFlow] { recorded.withLock { $0 } }

    // MARK: - One connection

    func intercept(_ socket: Socket, number: Int) {
        let stream = log.makeStream(.proxy)
        // Published at once and updated as it goes: what the attacker read is visible the moment it is read.
        // A flow that is not kept lives in a store of its own, freed when the connection ends.
        let flow = FlowRecord(in: keepsFlows ? recorded : Locked([]))
        flow.update { $0.number = number }
        defer { onFlowEnd?(flow.current) }
        do {
            var connectHost: String? = nil
            if !Self.startsWithTLS(socket) {
                guard let host = try answerHTTP(socket, stream: stream, flow: flow) else { return }
                connectHost = host
            }
            // Until both handshakes are done, however slowly the client sends its ClientHello.
            socket.deadline = .now + TLSConnection.handshakeDeadline
            if attack.terminatesTLS {
                try terminate(socket, connectHost: connectHost, stream: stream, flow: flow)
            } else {
                try passThrough(socket, connectHost: connectHost, stream: stream, flow: flow)
            }
        } catch {
            stream.record(.refused(reason: "\(error)"))
        }
    }

    /// True unless the first byte waiting is something other than a TLS handshake record (22): a client
    /// that sent nothing yet or left is handled as TLS, whose handshake then reports it.
    private static func startsWithTLS(_ socket: Socket) -> Bool {
        var first = [UInt8](repeating: 0, count: 1)
        return recv(socket.descriptor, &first, 1, Int32(MSG_PEEK)) != 1 || first[0] == 22
    }

    /// A client that speaks HTTP first. A CONNECT to a routed host gets its tunnel: returns the host.
    /// Anything else gets an HTTP answer from the proxy itself and the connection ends: returns nil.
    private func answerHTTP(_ socket: Socket, stream: EventStream, flow: FlowRecord) throws -> String? {
        let deadline = HTTPFraming.deadlineFromNow
        let framing = HTTPFraming(role: .request, longestBody: HTTPFraming.longestBody, keepsRaw: true)
        // The head is kept with what the attacker read only when the proxy answers it: after a CONNECT,
        // what the client sends next is the decrypted request.
        func answer(_ response: HTTPMessage, explaining reason: String? = nil) throws -> String? {
            flow.update { $0.read(framing.raw[...], from: .client) }
            let status = String(response.startLine.split(separator: " ", maxSplits: 1).last ?? "")
            flow.update { $0.answer = status + (reason.map { " (\($0))" } ?? "") }
            if let reason { stream.record(.refused(reason: "answered \(status): \(reason)")) }
            try socket.write(response.serialized)
            socket.finish()
            return nil
        }
        func refuse(_ status: Int, _ reason: String, _ explanation: String) throws -> String? {
            try answer(.response(status, reason, body: Array((explanation + "\n").utf8), contentType: "text/plain; charset=utf-8"), explaining: explanation)
        }
        let head: HTTPFraming.Head
        do {
            guard let complete = try framing.readHead(from: socket, before: deadline) else {
                throw NetworkError.socket(operation: "the HTTP request", reason: "the connection ended before a complete HTTP head")
            }
            head = complete
        } catch let error as HTTPError {
            return try answer(error.answer, explaining: "\(error)")
        }
        // llhttp took the request line as "METHOD target HTTP/1.x".
        let parts = head.startLine.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { return try refuse(400, "Bad Request", "the request line is not 'METHOD target HTTP/1.x'") }
        let routed = routes.keys.sorted().map { "'\($0)'" }.joined(separator: ", ")
        if parts[0] == "CONNECT" {
            flow.update { $0.connectTarget = parts[1] }
            guard let host = Self.connectHost(parts[1]) else {
                return try refuse(400, "Bad Request", "CONNECT needs host:port, e.g. CONNECT bank.test:443")
            }
            flow.update { $0.host = host }
            guard routes[host] != nil else {
                return try refuse(403, "Forbidden", "this proxy routes only \(routed), not '\(host)'")
            }
            try socket.write(Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
            return host
        }
        let request = HTTPMessage(startLine: head.startLine, headers: head.headers)
        // A lesson's proxy, which has no pages of its own, relays plain HTTP for a host it routes, named by an
        // absolute-form target (a client configured with the proxy) or by the Host header (a client routed to
        // it), reading everything on the way. The lab's proxy has a site and answers every plain request
        // itself, so its pages stay reachable at its address whatever Host a browser sends.
        if site == nil, let destination = Self.plainHTTPDestination(of: parts, host: request.header("Host")), let port = routes[destination.host] {
            let originForm = "\(parts[0]) \(destination.path) \(parts[2])"
            try relayPlainHTTP(
                socket, framing: framing, deadline: deadline, originForm: originForm, to: destination.host, port: port, stream: stream, flow: flow
            ) { error in _ = try answer(error.answer, explaining: "\(error)") }
            return nil
        }
        guard parts[1].hasPrefix("/") else {
            return try refuse(403, "Forbidden", "it is not an open proxy: it routes only \(routed), with CONNECT")
        }
        guard let site else { return try refuse(404, "Not Found", "this proxy serves no pages") }
        return try answer(site.respond(to: request))
    }

    /// The host of a CONNECT target in authority-form (RFC 9112 §3.2.3), host:port; nil for any other form.
    static func connectHost(_ target: String) -> String? {
        let authority = target.split(separator: ":", omittingEmptySubsequences: false)
        guard authority.count == 2, !authority[0].isEmpty, UInt16(authority[1]) != nil else { return nil }
        return String(authority[0])
    }

    /// The host and path a plain HTTP request is for: from an absolute-form target ("http://bank.test/login"),
    /// else from an origin-form one ("/login") and its Host header; ports are dropped, as routes name hosts.
    static func plainHTTPDestination(of requestLine: [String], host: String?) -> (host: String, path: String)? {
        let target = requestLine[1]
        let authority: Substring
        let path: String
        if target.hasPrefix("/") {
            guard let host else { return nil }
            authority = Substring(host)
            path = target
        } else if target.lowercased().hasPrefix("http://") {
            let rest = target.dropFirst("http://".count)
            authority = rest.prefix { $0 != "/" }
            path = rest.dropFirst(authority.count).isEmpty ? "/" : String(rest.dropFirst(authority.count))
        } else {
            return nil
        }
        let name = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return name.isEmpty ? nil : (name.lowercased(), path)
    }

    /// Plain HTTP to a routed host: read the client's request (all of it is readable), send it on with an
    /// origin-form request line, read the answer, hand it back. One request per connection, as every
    /// request here says `Connection: close`. A request the proxy cannot read whole goes to `refuse`, which
    /// answers it as the proxy answers a head it cannot read.
    private func relayPlainHTTP(
        _ socket: Socket, framing: HTTPFraming, deadline: ContinuousClock.Instant, originForm: String, to host: String, port: UInt16,
        stream: EventStream, flow: FlowRecord, refuse: (HTTPError) throws -> Void
    ) throws {
        let client = PlainConnection(socket: socket, stream: stream, isConnector: false, peer: .client)
        defer { client.close(finishing: true) }
        client.noteReceived(framing.raw.count)
        flow.update { $0.host = host }
        stream.record(.intercepting(host: host, plan: "relaying plain HTTP: there is no TLS to break, every byte is readable"))
        let read: HTTPMessage?
        do {
            read = try framing.readMessage(from: { try client.read(before: deadline) })
        } catch let error as HTTPError {
            return try refuse(error)
        }
        guard read != nil, let head = framing.head else { return stream.record(.peerVanished(during: "the request")) }
        let request = framing.raw
        flow.update { $0.read(request[...], from: .client) }
        stream.record(.plaintextRead(from: .client, bytes: request.count, preview: Self.preview(head, body: framing.body[...])))

        let server = PlainConnection(socket: try Socket.connect(address: upstreamAddress, port: port), stream: stream, isConnector: true, peer: .origin)
        defer { server.close() }
        let forwarded = Array(originForm.utf8) + request[head.startLineEnd...]
        try server.write(forwarded[...], summary: HTTPMessage(startLine: originForm).summary)
        let answer = HTTPFraming(role: .response, longestBody: HTTPFraming.longestBody, keepsRaw: true)
        guard try answer.readMessage(from: { try server.read() }) != nil, let answerHead = answer.head else {
            let reason = "the server closed the connection without a response"
            flow.update { $0.upstreamFailure = reason }
            return stream.record(.upstreamFailed(reason: reason))
        }
        let response = answer.raw
        flow.update { $0.read(response[...], from: .origin) }
        stream.record(.plaintextRead(from: .origin, bytes: response.count, preview: Self.preview(answerHead, body: answer.body[...])))
        try client.write(response[...], summary: HTTPMessage(startLine: answerHead.startLine).summary)
    }

    private func terminate(_ socket: Socket, connectHost: String?, stream: EventStream, flow: FlowRecord) throws {
        let client = try TLSConnection(context: downstream, socket: socket, stream: stream, isConnector: false, peer: .client)
        switch client.handshake() {
        case .pausedAtClientHello: break
        case .failed(TLSConnection.peerClosed): return stream.record(.peerVanished(during: "the ClientHello"))
        case .failed(let reason):
            flow.update { $0.clientAlert = client.receivedAlert }
            return stream.record(.handshakeFailed(reason: reason))
        case .completed: preconditionFailure("the downstream handshake pauses for a certificate first")
        }
        let serverName = client.requestedServerName
        flow.update {
            $0.serverName = serverName
            $0.offeredProtocols = client.offeredProtocols
        }
        guard let port = route(connectHost: connectHost, serverName: serverName, stream: stream, flow: flow) else { return }
        let host = connectHost ?? serverName ?? defaultHost ?? ""
        guard let upstreamSocket = connectUpstream(port: port, stream: stream, flow: flow) else { return }
        upstreamSocket.deadline = .now + TLSConnection.handshakeDeadline
        let server = try TLSConnection(context: upstream, socket: upstreamSocket, stream: stream, isConnector: true, serverName: host, peer: .origin)
        defer { server.close() }
        defer { client.close() }
        let clientResult: TLSConnection.HandshakeResult
        let upstreamFailure: String?
        if let cached = cachedForgeries.withLock({ $0[host] }) {
            (clientResult, upstreamFailure) = try overlapHandshakes(client: client, server: server, reusing: cached, for: host, stream: stream, flow: flow)
        } else {
            // Upstream first, as mitmproxy does, to learn the names the forgery must carry.
            let upstreamResult = server.handshake()
            let realChain = server.peerChain
            guard !realChain.isEmpty else {
                noCertificate(upstreamResult, stream: stream, flow: flow)
                return
            }
            stream.record(.upstreamChain(realChain.map(\.label)))
            upstreamFailure = failure(of: server, upstreamResult, stream: stream, flow: flow)
            let (chain, key, note) = try presentation(for: realChain)
            // Once per chain presented from here on: a cached forgery is presented again without registering it.
            log.register(chain)
            if attack.forgesFromRealLeaf { cachedForgeries.withLock { $0[host] = CachedForgery(copied: realChain[0], chain: chain, key: key, note: note) } }
            try present(chain, key: key, note: note, to: client, stream: stream, flow: flow)
            clientResult = client.handshake()
        }
        if case .failed(let reason) = clientResult {
            flow.update { $0.clientAlert = client.receivedAlert }
            return stream.record(.handshakeFailed(reason: "the client refused what it was shown: \(reason)"))
        }
        flow.update { $0.clientAccepted = true }
        client.recordCompletedHandshake()
        // Both handshakes are done: from here each read waits the socket's timeout, as the relay expects.
        socket.deadline = nil
        upstreamSocket.deadline = nil
        guard upstreamFailure == nil else {
            // Nothing to forward to, but the client already trusts us: read what it sends, then hang up.
            let framing = HTTPFraming(role: .request, longestBody: HTTPFraming.longestBody)
            let deadline = HTTPFraming.deadlineFromNow
            if let request = try? framing.readMessage(from: { try client.read(before: deadline) }), let head = framing.head {
                let read = request.serialized
                flow.update { $0.read(read[...], from: .client) }
                stream.record(.plaintextRead(from: .client, bytes: read.count, preview: Self.preview(head, body: request.body[...])))
            }
            return
        }
        if attack.forgesFromRealLeaf {
            // From here on, after the leaf check: TLS 1.3 tickets arrive while relaying (a TLS 1.2 session, issued
            // inside the handshake, is not kept).
            server.onNewSession = { [sessions] session in
                sessions.withLock { $0[host] = Array(($0[host] ?? []).suffix(Self.sessionsPerHost - 1)) + [session] }
            }
        }
        relay(client: client, server: server, stream: stream, flow: flow)
    }

    /// A forgery already made for `host`: presented to the client at once, while the proxy handshakes with the real
    /// server on the same thread (`OverlappedHandshakes`), offering it a session it issued earlier when there is one.
    /// Nothing is relayed unless the real server presents the very certificate the forgery copied, or resumes a
    /// session that holds it (only the server that issued the session can); otherwise the forgery and the sessions
    /// are forgotten (the next connection forges anew) and this one is treated as an upstream failure. Returns the client's handshake result and
    /// the upstream failure, if any.
    private func overlapHandshakes(
        client: TLSConnection, server: TLSConnection, reusing cached: CachedForgery, for host: String, stream: EventStream, flow: FlowRecord
    ) throws -> (TLSConnection.HandshakeResult, String?) {
        let session = sessions.withLock { $0[host]?.popLast() }
        if let session {
            server.offer(session)
            stream.record(.reusingForgeryResuming(host: host, copied: cached.copied.label))
        } else {
            stream.record(.reusingForgery(host: host, copied: cached.copied.label))
        }
        try present(cached.chain, key: cached.key, note: cached.note, to: client, stream: stream, flow: flow)
        let results = OverlappedHandshakes.run([server, client], before: client.socket.deadline ?? .now + TLSConnection.handshakeDeadline)
        guard server.hasPeerCertificate else { return (results[1], noCertificate(results[0], stream: stream, flow: flow)) }
        // A resumed session holds the leaf of the full handshake it came from, which the server does not present again.
        // The chain is parsed only for a log that keeps events, or when it is not the one the forgery copied.
        if !server.resumed { stream.record(.upstreamChain(server.peerChain.map(\.label))) }
        guard server.presentedLeaf(is: cached.copied) else {
            cachedForgeries.withLock { if $0[host]?.copied == cached.copied { $0[host] = nil } }
            sessions.withLock { $0[host] = nil }
            let presented = server.peerChain.first.map { "'\($0.label)'" } ?? "another certificate"
            let shown = server.resumed ? "the session the real server resumed holds" : "the real server now presents"
            let reason =
                "\(shown) \(presented), not '\(cached.copied.label)' that the cached forgery copied: "
                + "nothing is relayed, and the next connection forges anew"
            flow.update { $0.upstreamFailure = reason }
            stream.record(.upstreamFailed(reason: reason))
            return (results[1], reason)
        }
        let failure = failure(of: server, results[0], stream: stream, flow: flow)
        if failure == nil { stream.record(server.resumed ? .sessionResumed(copied: cached.copied.label) : .forgeryConfirmed(copied: cached.copied.label)) }
        return (results[1], failure)
    }

    /// Records why the server presented no certificate to forge from, as an upstream failure, and returns it.
    @discardableResult
    private func noCertificate(_ result: TLSConnection.HandshakeResult, stream: EventStream, flow: FlowRecord) -> String {
        let reason = if case .failed(let reason) = result { reason } else { "the server sent no certificate" }
        flow.update { $0.upstreamFailure = reason }
        stream.record(.upstreamFailed(reason: reason))
        return reason
    }

    /// The upstream failure, recorded, after a handshake in which the server presented a certificate; nil when none.
    private func failure(of server: TLSConnection, _ result: TLSConnection.HandshakeResult, stream: EventStream, flow: FlowRecord) -> String? {
        var failure: String? = if case .failed(let reason) = result { reason } else { nil }
        if failure == nil, server.certificateRequested {
            // The server wants a client certificate the proxy does not have: hear its verdict before going on.
            failure = server.serverVerdictOnMissingCertificate()
        }
        if let failure {
            flow.update { $0.upstreamFailure = failure }
            stream.record(.upstreamFailed(reason: failure))
        }
        return failure
    }

    /// Shows `chain` to the client (the handshake goes on at its next step); the log knows its labels already.
    private func present(_ chain: [Certificate], key: PrivateKey, note: String, to client: TLSConnection, stream: EventStream, flow: FlowRecord) throws {
        flow.update { $0.presentedChain = chain.map(\.label) }
        stream.record(.presenting(chain: chain.map(\.label), note: note))
        try client.present(chain, key: key)
    }

    /// A connection to the origin at `port`; nil, recorded as an upstream failure with the system's reason,
    /// when there is none (the origin is gone, or the system is out of ports or descriptors).
    private func connectUpstream(port: UInt16, stream: EventStream, flow: FlowRecord) -> Socket? {
        do {
            return try Socket.connect(address: upstreamAddress, port: port)
        } catch {
            failed(true, "\(error)", stream: stream, flow: flow)
            return nil
        }
    }

    /// The origin port for the host the client asked for (CONNECT, else SNI, else the default host),
    /// recording the plan; nil, recording the refusal, when that host is not routed.
    private func route(connectHost: String?, serverName: String?, stream: EventStream, flow: FlowRecord) -> UInt16? {
        let host = connectHost ?? serverName ?? defaultHost
        flow.update { $0.host = host }
        guard let host, let port = routes[host] else {
            let refusal = "this proxy routes only \(routes.keys.sorted().map { "'\($0)'" }.joined(separator: ", "))"
            flow.update { $0.refusal = refusal }
            stream.record(.refused(reason: host.map { "no route to '\($0)': \(refusal)" } ?? "no server name, and no default host: \(refusal)"))
            return nil
        }
        stream.record(.intercepting(host: host, plan: attack.plan))
        return port
    }

    /// The chain and key shown to the client, by attack.
    private func presentation(for realChain: [Certificate]) throws -> (chain: [Certificate], key: PrivateKey, note: String) {
        let real = realChain[0]
        switch attack {
        case .forge(let authority):
            let forged = try forgery(of: real, signedBy: authority)
            return ([forged.certificate, authority.certificate], forged.privateKey, "forged with the real names")
        case .misissued(let authority):
            let forged = try forgery(of: real, signedBy: authority)
            return ([forged.certificate, authority.certificate], forged.privateKey, "issued by a CA the device trusts")
        case .misissuedLogged(let authority, let chain, let logs):
            let forged = try forgery(of: real, signedBy: authority, chain: chain, loggingTo: logs)
            return ([forged.certificate, authority.certificate], forged.privateKey, "issued by a CA the device trusts, with SCTs from the logs")
        case .selfSigned:
            let forged = try forgery(of: real, signedBy: nil)
            return ([forged.certificate], forged.privateKey, "self-signed with the real names")
        case .replayRealChain:
            return (realChain, try PrivateKey.impostor(claiming: real), "the real chain, without the real private key")
        case .stolenKey(let key):
            return (realChain, key, "the real chain with the stolen private key")
        case .present(let chain, let key, let note):
            return (chain, key, note)
        case .passthrough:
            preconditionFailure("passthrough does not present a chain")
        }
    }

    /// Forgeries are cached by the names they copy and the signer, like mitmproxy's CertStore.
    private func forgery(of real: Certificate, signedBy authority: Identity?, chain: [Certificate] = [], loggingTo logs: [CTLog] = []) throws -> Identity {
        let key = ([real.subject.description] + real.dnsNames + real.ipAddresses + [authority?.certificate.sha256Hex ?? "self"] + logs.map(\.name))
            .joined(separator: "|")
        if let cached = forgeries.withLock({ $0[key] }) { return cached }
        let forged = try factory.forge(impersonating: real, signedBy: authority, chain: chain, loggingTo: logs)
        forgeries.withLock { $0[key] = forged }
        return forged
    }

    // MARK: - Relaying

    /// Copies decrypted data both ways, reading every byte, until one side closes.
    ///
    /// Each HTTP message is reported once, when its first record arrives, with the length its header
    /// announces; the records that complete it are forwarded without further events.
    private func relay(client: TLSConnection, server: TLSConnection, stream: EventStream, flow: FlowRecord) {
        let sides = [(client, server, NetworkEvent.Actor.client), (server, client, NetworkEvent.Actor.origin)]
        let readers = [RelayedMessages(role: .request), RelayedMessages(role: .response)]
        client.startRelaying()
        server.startRelaying()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let buffered = sides.indices.filter { sides[$0].0.hasBufferedData }
            let ready = buffered.isEmpty ? Socket.waitReadable([client.socket, server.socket], timeout: Socket.defaultTimeout) : buffered
            guard !ready.isEmpty else {
                flow.update { $0.relayTimedOut = true }
                return stream.record(.peerVanished(during: "the relay (timed out)"))
            }
            for index in ready {
                let (source, target, from) = sides[index]
                let count: Int
                do {
                    guard let read = try source.read(into: &buffer) else { continue }  // a session ticket: no data yet
                    count = read
                } catch {
                    return failed(source === server, "\(error)", stream: stream, flow: flow)
                }
                if count == 0 { return }  // close_notify: the deferred closes pass it on
                let data = buffer[..<count]
                flow.update { $0.read(data, from: from) }
                // Describing costs a parse (`HTTPFraming`) that only the events show.
                let message = stream.eventLog.keepsEvents ? readers[index].describe(data) : nil
                if let message { stream.record(.plaintextRead(from: from, bytes: message.length, preview: message.preview)) }
                do {
                    try target.write(data, announcing: message.map { ($0.summary, $0.length) })
                } catch {
                    return failed(target === server, "\(error)", stream: stream, flow: flow)
                }
            }
        }
    }

    /// A side of the relay broke: the origin's side is an upstream failure, the client's a vanished peer.
    private func failed(_ upstream: Bool, _ reason: String, stream: EventStream, flow: FlowRecord) {
        if upstream {
            flow.update { $0.upstreamFailure = reason }
            stream.record(.upstreamFailed(reason: reason))
        } else {
            stream.record(.peerVanished(during: "the relay: \(reason)"))
        }
    }

    /// Passthrough: forward the raw TLS stream both ways; only the ClientHello's SNI is readable.
    private func passThrough(_ socket: Socket, connectHost: String?, stream: EventStream, flow: FlowRecord) throws {
        var hello: [UInt8] = []
        while HandshakeParser.recordLength(hello).map({ hello.count < $0 }) ?? true {
            let chunk = try socket.read(upTo: 16_384)
            guard !chunk.isEmpty else { return stream.record(.peerVanished(during: "the ClientHello")) }
            hello += chunk
        }
        let clientHello = HandshakeParser.clientHello(record: hello)
        flow.update {
            $0.serverName = clientHello?.serverName
            $0.offeredProtocols = clientHello?.protocols
        }
        let downstreamID = log.connection(connector: socket.remotePort, acceptor: socket.localPort)
        stream.require(Channel(connection: downstreamID, fromConnector: true, unit: .records), 1)
        guard let port = route(connectHost: connectHost, serverName: clientHello?.serverName, stream: stream, flow: flow) else { return }

        socket.deadline = nil
        guard let server = connectUpstream(port: port, stream: stream, flow: flow) else { return }
        defer { server.close() }
        log.alias(connector: server.localPort, acceptor: server.remotePort, as: downstreamID)
        try server.write(hello)
        var counts = (fromClient: hello.count, fromOrigin: 0)
        var records = (fromClient: TLSRecordCounter(), fromOrigin: TLSRecordCounter())
        records.fromClient.feed(hello)
        relayRaw: while true {
            let ready = Socket.waitReadable([socket, server], timeout: Socket.defaultTimeout)
            guard !ready.isEmpty else { break }
            for index in ready {
                let (source, target) = index == 0 ? (socket, server) : (server, socket)
                guard let data = try? source.read(upTo: 65_536), !data.isEmpty, (try? target.write(data)) != nil else { break relayRaw }
                if index == 0 {
                    counts.fromClient += data.count
                    records.fromClient.feed(data)
                } else {
                    counts.fromOrigin += data.count
                    records.fromOrigin.feed(data)
                }
            }
        }
        flow.update { $0.opaqueBytes = counts }
        stream.recordFinal(.relayed(recordsFromClient: records.fromClient.count, recordsFromOrigin: records.fromOrigin.count))
    }

    /// A forgery presented for a host, with the real certificate it copied.
    private struct CachedForgery: Sendable {
        let copied: Certificate
        let chain: [Certificate]
        let key: PrivateKey
        let note: String
    }

    /// One connection's entry in `flows`, updated in place under the lock.
    private struct FlowRecord {
        let store: Locked<[InterceptedFlow]>
        let index: Int

        init(in store: Locked<[InterceptedFlow]>) {
            self.store = store
            index = store.withLock { flows in
                flows.append(InterceptedFlow())
                return flows.count - 1
            }
        }

        var current: InterceptedFlow { store.withLock { $0[index] } }

        func update(_ change: (inout InterceptedFlow) -> Void) { store.withLock { change(&$0[index]) } }
    }

    // MARK: - Describing data

    /// What a message shows an attacker: its start line and, for a small message, the body, where a password sits.
    static func preview(_ head: HTTPFraming.Head, body: ArraySlice<UInt8>) -> String {
        let length = head.length + (head.bodyLength ?? body.count)
        let text = length <= 1024 ? String(decoding: body.prefix(1024 - head.length), as: UTF8.self).trimmingWhiteSpace() : ""
        return text.isEmpty ? head.startLine : "\(head.startLine) | \(text)"
    }
}
