import Foundation
import PKI
import Testing

@testable import LoopbackTLS

extension NetworkTests {
    /// The attacker's port as an HTTP server, over real sockets on 127.0.0.2 (a loopback address other than
    /// the default, as a LAN lab uses one): it is never an open proxy, and it answers what it refuses.
    @Suite struct ProxyHTTPTests {
        static let address = try! ListenAddress("127.0.0.2")

        /// A bank and a forging proxy on 127.0.0.2 routing only bank.test, as the lab has them.
        func withProxy(_ body: (InterceptingProxy, OriginServer) throws -> Void) throws {
            let world = NetworkWorld.shared
            let log = EventLog()
            var configuration = world.origin
            configuration.closesAfterResponse = true  // as in the lab
            let origin = try OriginServer(configuration, log: log, address: Self.address)
            defer { origin.stop() }
            let proxy = try InterceptingProxy(
                attack: .forge(authority: world.attackerCA), routes: ["bank.test": origin.port], defaultHost: "bank.test", log: log,
                factory: world.factory, address: Self.address)
            defer { proxy.stop() }
            try body(proxy, origin)
        }

        /// Sends `request` to the proxy and reads its whole answer (it closes after answering).
        func answer(_ proxy: InterceptingProxy, to request: [UInt8]) throws -> String {
            let socket = try Socket.connect(address: Self.address, port: proxy.port)
            defer { socket.close() }
            try socket.write(request)
            var answer: [UInt8] = []
            while case let chunk = try socket.read(upTo: 4096), !chunk.isEmpty { answer += chunk }
            return String(decoding: answer, as: UTF8.self)
        }

        @Test func aConnectToAnotherHostIsForbiddenAndSaysOnlyTheBankIsRouted() throws {
            try withProxy { proxy, origin in
                let answer = try answer(proxy, to: Array("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n".utf8))
                #expect(answer.hasPrefix("HTTP/1.1 403 Forbidden\r\n"), "\(answer)")
                #expect(answer.hasSuffix("\r\n\r\nthis proxy routes only 'bank.test', not 'example.com'\n"))
                #expect(proxy.flows.first?.connectTarget == "example.com:443")
                #expect(proxy.flows.first?.answer?.hasPrefix("403 Forbidden") == true)
                #expect(origin.requestsReceived.isEmpty)
            }
        }

        @Test func aProxyRequestForAnAbsoluteURLIsForbiddenToo() throws {
            try withProxy { proxy, _ in
                let answer = try answer(proxy, to: Array("GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n".utf8))
                #expect(answer.hasPrefix("HTTP/1.1 403 Forbidden\r\n"), "\(answer)")
            }
        }

        @Test func aMalformedRequestIsABadRequest() throws {
            try withProxy { proxy, _ in
                let noTarget = try answer(proxy, to: Array("CONNECT\r\n\r\n".utf8))
                let noPort = try answer(proxy, to: Array("CONNECT bank.test HTTP/1.1\r\n\r\n".utf8))
                #expect(noTarget.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(noTarget)")
                #expect(noPort.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(noPort)")
            }
        }

        @Test func anOversizedHeadIsAnswered431EvenThoughItWasNotReadToTheEnd() throws {
            try withProxy { proxy, _ in
                let head = "CONNECT bank.test:443 HTTP/1.1\r\nX-Padding: \(String(repeating: "a", count: 10_000))\r\n\r\n"
                let answer = try answer(proxy, to: Array(head.utf8))
                #expect(answer.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "\(answer)")
            }
        }

        @Test func withoutASiteAPlainRequestForAPathIsNotFound() throws {
            try withProxy { proxy, _ in
                let answer = try answer(proxy, to: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                #expect(answer.hasPrefix("HTTP/1.1 404 Not Found\r\n"), "\(answer)")
            }
        }

        @Test func connectionsAreNumberedInTheOrderTheyArrived() throws {
            try withProxy { proxy, _ in
                for _ in 0..<3 { _ = try answer(proxy, to: Array("CONNECT\r\n\r\n".utf8)) }
                #expect(proxy.flows.map(\.number) == [1, 2, 3])
            }
        }

        /// A client on 127.0.0.2 that accepts any chain, sends `request` and reads the answer; nil server name sends no SNI.
        static func exchange(port: UInt16, serverName: String?, request: HTTPMessage) throws -> (response: HTTPMessage?, then: [UInt8]) {
            let context = try TLSContext(role: .client)
            context.judgeServerCertificates()
            // A receive timeout shorter than the servers' (5 s): a server that does not close fails the read.
            let connection = try TLSConnection(
                context: context, socket: Socket.connect(address: address, port: port, timeout: 2), stream: EventLog().makeStream(.client),
                isConnector: true, serverName: serverName)
            connection.judge = { _, _ in .accept }
            defer { connection.close() }
            guard connection.handshake() == .completed else { return (nil, []) }
            try connection.write(request.serialized[...], summary: "request")
            let response = try HTTPFraming(role: .response, longestBody: HTTPFraming.longestBody).readMessage(from: { try connection.read() })
            return (response, try connection.read())
        }

        @Test func aTransparentConnectionWithoutSNIGoesToTheDefaultHost() throws {
            try withProxy { proxy, origin in
                let (response, _) = try Self.exchange(port: proxy.port, serverName: nil, request: NetworkWorld.login)
                #expect(response?.startLine == "HTTP/1.1 200 OK")
                #expect(origin.requestsReceived == ["POST /login"])
                #expect(proxy.flows.first?.serverName == nil)
                #expect(proxy.flows.first?.host == "bank.test")
            }
        }
    }

    /// An origin that closes after answering, as its `Connection: close` header says: a client reading
    /// to the end of the stream gets a clean close_notify at once, not the 5-second socket timeout.
    @Suite struct OriginCloseTests {
        @Test(arguments: ["HTTP/1.0", "HTTP/1.1"])
        func afterAnsweringTheOriginClosesWithCloseNotify(_ version: String) throws {
            var configuration = NetworkWorld.shared.origin
            configuration.closesAfterResponse = true
            let origin = try OriginServer(configuration, log: EventLog(), address: ProxyHTTPTests.address)
            defer { origin.stop() }
            let request = HTTPMessage(startLine: "GET / \(version)", headers: ["Host: bank.test"])
            let (response, then) = try ProxyHTTPTests.exchange(port: origin.port, serverName: "bank.test", request: request)
            #expect(response?.startLine == "HTTP/1.1 200 OK")
            #expect(then.isEmpty, "a read after the response meets close_notify (end of stream)")
        }

        @Test func throughTheProxyTheCloseReachesTheClientToo() throws {
            var configuration = NetworkWorld.shared.origin
            configuration.closesAfterResponse = true
            let log = EventLog()
            let origin = try OriginServer(configuration, log: log, address: ProxyHTTPTests.address)
            defer { origin.stop() }
            let proxy = try InterceptingProxy(
                attack: .forge(authority: NetworkWorld.shared.attackerCA), routes: ["bank.test": origin.port], log: log,
                factory: NetworkWorld.shared.factory, address: ProxyHTTPTests.address)
            defer { proxy.stop() }
            let (response, then) = try ProxyHTTPTests.exchange(port: proxy.port, serverName: "bank.test", request: NetworkWorld.login)
            #expect(response?.startLine == "HTTP/1.1 200 OK")
            #expect(then.isEmpty)
        }
    }

    /// Where servers listen: 127.0.0.1 unless an address was asked for, and only a usable IPv4 one.
    @Suite struct ListenAddressTests {
        @Test func theDefaultIsLoopbackAndAnotherAddressIsParsedExactly() throws {
            #expect(ListenAddress.loopback.description == "127.0.0.1")
            #expect(try ListenAddress("192.168.1.20").description == "192.168.1.20")
            #expect(try ListenAddress("127.0.0.2").isLoopback)
            #expect(try !ListenAddress("10.0.0.5").isLoopback)
        }

        @Test(arguments: ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "a.b.c.d", "+1.2.3.4", "1..2.3", "::1", "0.0.0.0"])
        func anythingElseIsRefusedWithAReason(_ text: String) {
            #expect(throws: NetworkError.self) { try ListenAddress(text) }
        }

        @Test func anAddressThisMachineDoesNotHaveIsNamedInTheError() {
            #expect(throws: NetworkError.socket(operation: "bind 192.0.2.1:0", reason: "192.0.2.1 is not an address of this machine")) {
                try Socket.listen(address: ListenAddress("192.0.2.1"), port: 0)
            }
        }
    }
}
