import Foundation
import PKI
import Policies
import Testing

@testable import LoopbackTLS

extension NetworkTests {
    /// Once the proxy has forged for a host, the next connection to it gets that forgery at once while the proxy
    /// handshakes with the real server, and nothing is relayed before the real server shows the leaf it copied.
    @Suite struct OverlappedHandshakeTests {
        let world = NetworkWorld.shared

        /// A client that trusts the attacker's CA, as a device with it installed.
        func login(through proxy: InterceptingProxy, log: EventLog) throws -> TLSClient.Result<Bool> {
            let client = try TLSClient(
                host: "bank.test", trustStore: DeviceTrustStore(system: [world.root.certificate, world.attackerCA.certificate]),
                verifyDate: NetworkWorld.clock)
            return client.exchange(.direct(port: proxy.port), request: NetworkWorld.login, log: log) { _, _ in .init(accept: true, verdict: true, summary: "") }
        }

        /// The proxy's events from `marker` on (or from the start), in the merged order.
        func proxyEvents(_ log: EventLog, after marker: ((NetworkEvent.Kind) -> Bool)? = nil) -> [NetworkEvent] {
            let events = log.events.filter { $0.actor == .proxy }
            guard let marker, let start = events.firstIndex(where: { marker($0.kind) }) else { return events }
            return Array(events[start...])
        }

        static func isReuse(_ kind: NetworkEvent.Kind) -> Bool {
            if case .reusingForgery = kind { true } else { false }
        }

        @Test func theSecondConnectionGreetsTheClientWhileTheProxyHandshakesWithTheServerAndChecksItsLeafBeforeRelaying() throws {
            // Only the proxy and the second client record into `log`: nothing the first connection's proxy events wait
            // for is in it, so the merge puts them all before the second connection's, which are the ones checked here.
            let log = EventLog()
            let origin = try OriginServer(world.origin, log: EventLog())
            defer { origin.stop() }
            let proxy = try InterceptingProxy(attack: .forge(authority: world.attackerCA), routes: ["bank.test": origin.port], log: log, factory: world.factory)
            defer { proxy.stop() }

            #expect(try login(through: proxy, log: EventLog()).response?.startLine == "HTTP/1.1 200 OK")
            #expect(!proxyEvents(log).contains { Self.isReuse($0.kind) }, "the first connection has nothing cached: upstream first")
            #expect(try login(through: proxy, log: log).response?.startLine == "HTTP/1.1 200 OK")
            proxy.stop()

            let events = proxyEvents(log, after: Self.isReuse)
            #expect(events.first?.kind == .reusingForgery(host: "bank.test", copied: "bank.test"))
            #expect(events.dropFirst().first?.kind == .presenting(chain: ["forged bank.test", "Attacker CA"], note: "forged with the real names"))
            // The ClientHello to the server leaves first, then the client's whole flight, and only then does the proxy read what
            // the server answered and finish with it.
            let upstreamHello = try #require(events.firstIndex { $0.peer == .origin && $0.text.hasPrefix("ClientHello") })
            let clientServerHello = try #require(events.firstIndex { $0.peer == .client && $0.text.hasPrefix("ServerHello") })
            let clientFinished = try #require(events.firstIndex { $0.peer == .client && $0.text.hasPrefix("Finished") })
            let upstreamFinished = try #require(events.firstIndex { $0.peer == .origin && $0.text.hasPrefix("Finished") })
            let realChain = try #require(events.firstIndex { $0.kind == .upstreamChain(["bank.test", "Bank Intermediate"]) })
            #expect(upstreamHello < clientServerHello && clientFinished < upstreamFinished && clientServerHello < realChain, "\(log.text)")
            let confirmed = try #require(events.firstIndex { $0.kind == .forgeryConfirmed(copied: "bank.test") })
            let firstRead = try #require(events.firstIndex { if case .plaintextRead = $0.kind { true } else { false } })
            #expect(confirmed < firstRead, "checked before anything is relayed")
            #expect(proxy.flows.map(\.sawPlaintext) == [true, true])
            #expect(origin.requestsReceived == ["POST /login", "POST /login"])
        }

        /// What the first pass of `OverlappedHandshakes` guarantees, made certain: the server's reply is already waiting
        /// when the two handshakes are driven (as when it answered while the proxy's thread was not running), and still the
        /// client gets its whole flight before the proxy reads that reply.
        @Test func theClientsFlightLeavesBeforeTheProxyReadsAServerReplyThatIsAlreadyWaiting() throws {
            let log = EventLog()
            let stream = log.makeStream(.proxy)
            let origin = try OriginServer(world.origin, log: EventLog())
            defer { origin.stop() }

            let upstream = try TLSContext(role: .client)
            upstream.takeServerCertificatesUnjudged()
            let server = try TLSConnection(
                context: upstream, socket: try Socket.connect(port: origin.port), stream: stream, isConnector: true, serverName: "bank.test",
                peer: .origin)
            defer { server.close() }
            // The ClientHello goes out on a nonblocking socket, which stops at the first read; then the reply is awaited.
            let flags = fcntl(server.socket.descriptor, F_GETFL)
            _ = fcntl(server.socket.descriptor, F_SETFL, flags | O_NONBLOCK)
            #expect(server.handshakeStep() == .wantsRead)
            _ = fcntl(server.socket.descriptor, F_SETFL, flags)
            try server.socket.wait(forWriting: false, before: .now + .seconds(5))

            // The client's side: an app connects, and the proxy's end pauses at its ClientHello and is given a forgery.
            let listening = try Socket.listen(port: 0)
            defer { listening.close() }
            let app = try TLSClient(host: "bank.test", trustStore: DeviceTrustStore(system: [world.attackerCA.certificate]), verifyDate: NetworkWorld.clock)
            let appThread = try WorkerThread { [port = listening.localPort] in
                _ = app.exchange(.direct(port: port), request: NetworkWorld.login, log: EventLog()) { _, _ in .init(accept: true, verdict: true, summary: "") }
            }
            defer { appThread.join() }
            let downstream = try TLSContext(role: .server)
            downstream.pauseAtClientHello()
            let client = try TLSConnection(context: downstream, socket: try #require(try listening.accept()), stream: stream, isConnector: false, peer: .client)
            defer { client.close() }
            #expect(client.handshake() == .pausedAtClientHello)
            let forged = try world.factory.forge(impersonating: world.leaf.certificate, signedBy: world.attackerCA)
            try client.present([forged.certificate, world.attackerCA.certificate], key: forged.privateKey)

            #expect(OverlappedHandshakes.run([server, client], before: .now + .seconds(10)) == [.completed, .completed])
            let sent = log.events.filter { $0.actor == .proxy }
            let clientFinished = try #require(sent.firstIndex { $0.peer == .client && $0.text.hasPrefix("Finished") })
            let upstreamFinished = try #require(sent.firstIndex { $0.peer == .origin && $0.text.hasPrefix("Finished") })
            #expect(clientFinished < upstreamFinished, "\(log.text)")
        }

        @Test func aServerThatIssuesTicketsIsResumedUpstreamAndItsSessionsLeafIsCheckedBeforeRelaying() throws {
            let log = EventLog()
            var configuration = world.origin
            configuration.sessionTickets = 2
            let origin = try OriginServer(configuration, log: EventLog())
            defer { origin.stop() }
            let proxy = try InterceptingProxy(attack: .forge(authority: world.attackerCA), routes: ["bank.test": origin.port], log: log, factory: world.factory)
            defer { proxy.stop() }

            #expect(try login(through: proxy, log: EventLog()).response?.startLine == "HTTP/1.1 200 OK")
            #expect(try login(through: proxy, log: log).response?.startLine == "HTTP/1.1 200 OK")
            proxy.stop()

            let isResuming = { (kind: NetworkEvent.Kind) in kind == .reusingForgeryResuming(host: "bank.test", copied: "bank.test") }
            let events = proxyEvents(log, after: isResuming)
            #expect(events.first.map { isResuming($0.kind) } == true, "\(log.text)")
            #expect(!events.contains { if case .upstreamChain = $0.kind { true } else { false } }, "a resumed server presents no chain")
            let resumed = try #require(events.firstIndex { $0.kind == .sessionResumed(copied: "bank.test") })
            let firstRead = try #require(events.firstIndex { if case .plaintextRead = $0.kind { true } else { false } })
            #expect(resumed < firstRead, "checked before anything is relayed")
            #expect(origin.requestsReceived == ["POST /login", "POST /login"])
        }

        @Test func aServerThatChangedItsLeafGetsNothingRelayedAndTheNextConnectionForgesAnew() throws {
            let log = EventLog()
            let first = try OriginServer(world.origin, log: log)
            let port = first.port
            let proxy = try InterceptingProxy(attack: .forge(authority: world.attackerCA), routes: ["bank.test": port], log: log, factory: world.factory)
            defer { proxy.stop() }
            #expect(try login(through: proxy, log: log).response?.startLine == "HTTP/1.1 200 OK")
            first.stop()

            // The same names and issuer, a new key: another leaf, which the cached forgery did not copy.
            var spec = CertificateSpec.serverLeaf(
                label: "renewed bank.test", organization: "Example Bank", dnsNames: ["bank.test"], notBefore: world.leaf.certificate.notBefore,
                notAfter: world.leaf.certificate.notAfter)
            spec.subject = world.leaf.certificate.subject
            let renewed = try world.factory.makeIdentity(spec, signedBy: world.intermediate)
            var configuration = world.origin
            configuration.transport = .tls(identity: renewed, chain: [renewed.certificate, world.intermediate.certificate])
            let second = try OriginServer(configuration, log: log, port: port)
            defer { second.stop() }

            let refused = try login(through: proxy, log: log)
            #expect(refused.response == nil)
            #expect(second.requestsReceived.isEmpty, "nothing relayed to a server whose leaf the forgery did not copy")
            let mismatch = try #require(proxy.flows.last?.upstreamFailure)
            #expect(mismatch.contains("now presents 'renewed bank.test', not 'bank.test'"))
            #expect(proxy.flows.last?.plaintextFromClient.containsText("password=hunter2") == true, "what the client sent is still read")

            let again = try login(through: proxy, log: log)
            #expect(again.response?.startLine == "HTTP/1.1 200 OK")
            #expect(second.requestsReceived == ["POST /login"])
            #expect(proxyEvents(log).filter { Self.isReuse($0.kind) }.count == 1, "the third connection forged anew, upstream first")
        }
    }
}
