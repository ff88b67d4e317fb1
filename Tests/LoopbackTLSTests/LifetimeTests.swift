import COpenSSL
import Foundation
import PKI
import Testing

@testable import LoopbackTLS

extension NetworkTests {
    /// Who keeps what alive: servers and proxies released mid-connection, contexts released before their
    /// connections, threads finishing while they are reaped, and the OpenSSL error queue of the caller.
    @Suite struct LifetimeTests {
        let world = NetworkWorld.shared

        /// Opens a connection that stops halfway through its ClientHello, so its handler sits in the handshake.
        func halfAClientHello(to port: UInt16) throws -> RawClient {
            let client = try RawClient(port: port)
            try client.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03])
            usleep(50_000)  // let the connection's thread reach the handshake (the test holds either way)
            return client
        }

        @Test func anOriginServerReleasedWhileAConnectionIsInItsHandshakeDoesNotCrash() throws {
            let log = EventLog()
            var origin: OriginServer? = try OriginServer(world.origin, log: log)
            let client = try halfAClientHello(to: try #require(origin?.port))
            defer { client.close() }
            origin = nil  // stops the listener; the connection's thread finishes with the state it holds
            #expect(log.events.contains { $0.actor == .origin }, "\(log.text)")
        }

        @Test func aProxyReleasedWhileAConnectionIsInItsHandshakeDoesNotCrash() throws {
            let log = EventLog()
            var proxy: InterceptingProxy? = try InterceptingProxy(
                attack: .forge(authority: world.attackerCA), routes: ["bank.test": 9], log: log, factory: world.factory)
            let client = try halfAClientHello(to: try #require(proxy?.port))
            defer { client.close() }
            proxy = nil
            #expect(log.events.contains { $0.actor == .proxy }, "\(log.text)")
        }

        @Test func aWorkerThatFinishesWhileBeingReapedIsJoinedOrKeptNeverLost() {
            // The flag reads "running" the first time it is asked and "finished" ever after.
            final class Flip { var reads = 0 }
            let workers = [Flip(), Flip(), Flip()]
            var joined: [ObjectIdentifier] = []
            let kept = Listener.reap(
                workers,
                isFinished: { worker in
                    worker.reads += 1
                    return worker.reads > 1
                }, join: { joined.append(ObjectIdentifier($0)) })

            #expect(kept.count + joined.count == workers.count)
            #expect(workers.allSatisfy { $0.reads == 1 }, "each flag is read once")
        }

        @Test func theKeyLogOutlivesTheContextThatWroteIntoIt() throws {
            let path = NSTemporaryDirectory() + "mitmsim-keylog-\(UUID().uuidString).txt"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let log = EventLog()
            let origin = try OriginServer(world.origin, log: log)
            defer { origin.stop() }

            var context: TLSContext? = try TLSContext(role: .client, keyLog: KeyLog(path: path))
            let connection = try TLSConnection(
                context: try #require(context), socket: Socket.connect(port: origin.port), stream: log.makeStream(.client), isConnector: true,
                serverName: "bank.test")
            context = nil  // the connection's SSL keeps the SSL_CTX, and with it the key log, alive
            for _ in 0..<1000 { _ = [UInt8](repeating: 0xEE, count: 64) }  // reuse freed memory, if any was freed
            #expect(connection.handshake() == .completed)
            connection.close()

            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("CLIENT_TRAFFIC_SECRET_0 ") }, "\(lines)")
        }

        @Test func anExchangeLeavesTheCallersPendingOpenSSLErrorsAsTheyWere() throws {
            defer { ERR_clear_error() }
            let junk: [UInt8] = [0x30, 0x82, 0xFF]
            junk.withUnsafeBufferPointer { buffer in
                var cursor = buffer.baseAddress
                _ = d2i_X509(nil, &cursor, buffer.count)
            }
            let pending = (ERR_peek_error(), ERR_peek_last_error())
            #expect(pending.0 != 0)

            let exchange = try Exchange(attack: .forge(authority: world.attackerCA))  // the client refuses: a failed handshake
            #expect(!exchange.result.handshakeCompleted)
            #expect(exchange.result.failure?.contains("asn1") != true, "\(exchange.result.failure ?? "")")
            #expect(ERR_peek_error() == pending.0 && ERR_peek_last_error() == pending.1)
        }
    }
}
