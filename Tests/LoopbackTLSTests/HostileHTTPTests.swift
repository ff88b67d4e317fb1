import Foundation
import PKI
import TestSupport
import Testing

@testable import LoopbackTLS

/// Requests that crashed the lab, over real sockets on 127.0.0.1 against a real origin and a real forging proxy:
/// each is answered or refused in words, and the process lives on. Not serialized with `NetworkTests`: the slow
/// clients wait out the request deadline side by side.
@Suite struct HostileHTTPTests {
    /// A TLS bank and a plain one, with a forging proxy (no site, as in a lesson) routing bank.test to the first.
    struct Servers {
        let log = EventLog()
        let origin: OriginServer
        let plainOrigin: OriginServer
        let proxy: InterceptingProxy
        let plainProxy: InterceptingProxy

        init() throws {
            let world = NetworkWorld.shared
            var configuration = world.origin
            configuration.closesAfterResponse = true  // as in the lab
            origin = try OriginServer(configuration, log: log)
            plainOrigin = try OriginServer(.plainHTTP(application: TestApplication(), closesAfterResponse: true), log: log)
            proxy = try InterceptingProxy(
                attack: .forge(authority: world.attackerCA), routes: ["bank.test": origin.port], defaultHost: "bank.test", log: log, factory: world.factory)
            plainProxy = try InterceptingProxy(
                attack: .forge(authority: world.attackerCA), routes: ["bank.test": plainOrigin.port], log: log, factory: world.factory)
        }

        func stop() {
            for server in [proxy, plainProxy] { server.stop() }
            for server in [origin, plainOrigin] { server.stop() }
        }
    }

    func withServers(_ body: (Servers) throws -> Void) throws {
        let servers = try Servers()
        defer { servers.stop() }
        try body(servers)
    }

    /// Sends `request` in the clear to `port` and reads the whole answer.
    static func plain(_ request: String, to port: UInt16) throws -> String {
        let socket = try Socket.connect(port: port)
        defer { socket.close() }
        try socket.write(Array(request.utf8))
        var answer: [UInt8] = []
        while case let chunk = try socket.read(upTo: 4096), !chunk.isEmpty { answer += chunk }
        return String(decoding: answer, as: UTF8.self)
    }

    /// Sends `request` over TLS to `port` (accepting any chain, SNI bank.test) and reads the whole answer.
    static func overTLS(_ request: String, to port: UInt16) throws -> String {
        let context = try TLSContext(role: .client)
        context.judgeServerCertificates()
        let connection = try TLSConnection(
            context: context, socket: Socket.connect(port: port), stream: EventLog().makeStream(.client), isConnector: true, serverName: "bank.test")
        connection.judge = { _, _ in .accept }
        defer { connection.close() }
        guard connection.handshake() == .completed else { return "" }
        try connection.write(Array(request.utf8)[...], summary: "request")
        var answer: [UInt8] = []
        while case let chunk = try connection.read(), !chunk.isEmpty { answer += chunk }
        return String(decoding: answer, as: UTF8.self)
    }

    @Test func aNegativeContentLengthIsABadRequestInTheClearToTheBankOrTheAttackerAndInsideTLS() throws {
        try withServers { servers in
            let request = "GET / HTTP/1.1\r\nHost: bank.test\r\nContent-Length: -1\r\n\r\n"
            let answers = [
                try Self.plain(request, to: servers.plainOrigin.port), try Self.plain(request, to: servers.plainProxy.port),
                try Self.overTLS(request, to: servers.origin.port), try Self.overTLS(request, to: servers.proxy.port),
            ]
            for answer in answers { #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(answer)") }
            #expect(servers.origin.requestsReceived.isEmpty && servers.plainOrigin.requestsReceived.isEmpty)
        }
    }

    @Test func aRequestWithoutHeaderLinesIsRelayedThroughTheTransparentProxyAndAnswered() throws {
        try withServers { servers in
            let answer = try Self.overTLS("GET / HTTP/1.0\r\n\r\n", to: servers.proxy.port)
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
            #expect(servers.origin.requestsReceived == ["GET /"])
        }
    }

    @Test func aContentLengthAsLongAsAnIntCanBeInsideTLSThroughTheProxyIsTooLargeForTheBank() throws {
        try withServers { servers in
            let request = "POST /login HTTP/1.1\r\nContent-Length: 9223372036854775807\r\n\r\nx"
            let answer = try Self.overTLS(request, to: servers.proxy.port)
            #expect(answer.hasPrefix("HTTP/1.1 413 Content Too Large\r\n"), "\(answer)")
            #expect(answer.hasSuffix("a body of 9223372036854775807 bytes is over the limit of 1048576\n"), "\(answer)")
            #expect(servers.proxy.flows.first?.plaintextFromClient == Array(request.utf8), "the attacker read it all the same")
        }
    }

    /// A body the plain-HTTP relay would have to hold whole past its limit is refused in words, as a head it
    /// cannot read is, and the bank never sees it.
    @Test func aChunkedBodyOverTheLimitIsAnsweredTooLargeByThePlainRelay() throws {
        try withServers { servers in
            let chunk = String(HTTPFraming.longestBody + 1, radix: 16)
            let request =
                "POST /login HTTP/1.1\r\nHost: bank.test\r\nTransfer-Encoding: chunked\r\n\r\n\(chunk)\r\n"
                + String(repeating: "a", count: HTTPFraming.longestBody + 1)
            let answer = try Self.plain(request, to: servers.plainProxy.port)
            #expect(answer.hasPrefix("HTTP/1.1 413 Content Too Large\r\n"), "\(answer.prefix(200))")
            #expect(servers.plainOrigin.requestsReceived.isEmpty)
        }
    }

    /// One byte a second never completes a head within the deadline: the server gives up at the deadline, however
    /// often bytes arrive, instead of holding a thread for as long as the client likes.
    @Test(arguments: [false, true])
    func aHeadThatTricklesInIsCutAtTheDeadline(toTheProxy: Bool) async throws {
        let servers = try Servers()
        defer { servers.stop() }
        let port = toTheProxy ? servers.plainProxy.port : servers.plainOrigin.port
        // Ten seconds of waiting, off Swift Testing's threads. The clock starts before the connection, as the server's
        // deadline does: a thread that started late on a busy machine would otherwise see the cut come early.
        let (waited, answer) = try await offThePool { () -> (Duration, [UInt8]) in
            let started = ContinuousClock.now
            let socket = try Socket.connect(port: port)
            defer { socket.close() }
            // Bounded: the test gives up after twice the deadline.
            for byte in Array("GET / HTTP/1.1\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 40) {
                guard (try? socket.write([byte])) != nil, started.duration(to: .now) < HTTPFraming.deadline * 2 else { break }
                if !Socket.waitReadable([socket], timeout: 1).isEmpty { return (started.duration(to: .now), (try? socket.read(upTo: 4096)) ?? []) }
            }
            return (started.duration(to: .now), [])
        }
        #expect(waited >= HTTPFraming.deadline && waited < HTTPFraming.deadline + .seconds(3), "\(waited)")
        #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
    }

    /// A server waiting for a client that sends nothing gives up at its deadline, never a fraction of a millisecond
    /// before it, whatever fraction of a millisecond the deadline falls on.
    @Test func aWaitForASilentClientEndsNoSoonerThanItsDeadline() throws {
        let listener = try Socket.listen(port: 0)
        defer { listener.close() }
        let client = try Socket.connect(port: listener.localPort)
        defer { client.close() }
        for fraction in stride(from: 0.05, to: 1, by: 0.1) {
            let deadline = ContinuousClock.now + .milliseconds(2) + .microseconds(Int(fraction * 1000))
            #expect(throws: HTTPError.tooSlow) { try client.wait(forWriting: false, before: deadline) }
            #expect(ContinuousClock.now >= deadline, "gave up \(ContinuousClock.now.duration(to: deadline)) early")
        }
    }
}
