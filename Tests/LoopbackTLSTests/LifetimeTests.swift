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

        /// Connects to `port` and reads until the listener closes the connection; returns what it read.
        static func visit(_ port: UInt16) throws -> [UInt8] {
            let socket = try Socket.connect(port: port)
            defer { socket.close() }
            var received: [UInt8] = []
            while case let chunk = try socket.read(upTo: 64), !chunk.isEmpty { received += chunk }
            return received
        }

        /// The calling thread's kernel id, from /proc/thread-self ("PID/task/TID"; glibc's gettid() is not imported).
        static func threadID() -> pid_t {
            pid_t((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))?.split(separator: "/").last ?? "") ?? 0
        }

        /// Whether the thread with this id still runs in this process.
        static func isAlive(_ thread: pid_t) -> Bool { FileManager.default.fileExists(atPath: "/proc/self/task/\(thread)") }

        @Test func connectionsOneAfterAnotherAreServedByTheWorkersThatWait() throws {
            let threads = Locked<[pid_t]>([])
            let listener = try Listener(port: 0) { _, _ in threads.withLock { $0.append(Self.threadID()) } }
            defer { listener.stop() }
            for _ in 0..<40 { _ = try Self.visit(listener.port) }

            let served = threads.withLock { $0 }
            #expect(served.count == 40)
            // A worker waits from the moment its connection is closed; the next may still arrive first, now and then.
            #expect(Set(served).count <= 10, "\(Set(served).count) threads for 40 connections")
        }

        @Test func noConnectionIsLostWhenWorkersStopWaitingJustAsItArrives() throws {
            // A 1 µs wait makes hand-overs race the end of the wait on almost every connection.
            let listener = try Listener(port: 0, idleTimeout: 0.000_001) { socket, number in try? socket.write(Array("\(number)".utf8)) }
            defer { listener.stop() }
            for number in 1...300 { #expect(try Self.visit(listener.port) == Array("\(number)".utf8)) }
        }

        @Test func atMostEightWorkersWaitAfterABurstAndNoneOnceTheyWaitedLongEnough() throws {
            let threads = Locked<[pid_t]>([])
            let release = Semaphore()
            let listener = try Listener(port: 0, idleTimeout: 1) { _, _ in
                threads.withLock { $0.append(Self.threadID()) }
                _ = release.wait(timeout: 10)
            }
            defer { listener.stop() }
            let clients = try (0..<12).map { _ in try Socket.connect(port: listener.port) }
            defer { for client in clients { client.close() } }
            #expect(HygieneTests.eventually { threads.withLock { $0.count } == 12 })
            for _ in clients { release.signal() }

            let burst = threads.withLock { $0 }
            #expect(Set(burst).count == 12, "one thread per connection at once")
            #expect(HygieneTests.eventually { burst.filter(Self.isAlive).count <= Listener.maximumIdle })
            #expect(HygieneTests.eventually { burst.filter(Self.isAlive).isEmpty }, "every worker ends after a second without work")
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
