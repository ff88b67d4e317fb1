import Foundation
import LoopbackTLS
import PKI
import Testing

extension NetworkTests {
    /// Plain HTTP on 127.0.0.1: no handshake, nothing to judge, and a proxy on the path reads everything.
    @Suite struct PlainHTTPTests {
        let world = NetworkWorld.shared

        /// One plain exchange: a plain HTTP bank, optionally a proxy in front of it (without a site, as in a lesson).
        struct PlainExchange {
            let log: EventLog
            let result: TLSClient.Result<Bool>
            let flows: [InterceptedFlow]
            let originRequests: [String]

            init(throughProxy route: ((UInt16) -> TLSClient.Route)? = nil, site: (any HTTPApplication)? = nil) throws {
                let world = NetworkWorld.shared
                let log = EventLog()
                self.log = log
                let origin = try OriginServer(.plainHTTP(application: TestApplication()), log: log)
                defer { origin.stop() }
                let proxy = try route.map { _ in
                    try InterceptingProxy(
                        attack: .forge(authority: world.attackerCA), routes: ["bank.test": origin.port], site: site, log: log, factory: world.factory)
                }
                defer { proxy?.stop() }
                let client = try TLSClient(host: "bank.test", trustStore: DeviceTrustStore(system: [world.root.certificate]), verifyDate: NetworkWorld.clock)
                let clientRoute = proxy.flatMap { proxy in route.map { $0(proxy.port) } } ?? .direct(port: origin.port)
                result = client.exchangePlainHTTP(clientRoute, request: NetworkWorld.login, log: log)
                proxy?.stop()
                origin.stop()
                flows = proxy?.flows ?? []
                originRequests = origin.requestsReceived
            }
        }

        @Test func aDirectPlainExchangeHasNoHandshakeAndNothingToJudge() throws {
            let exchange = try PlainExchange()

            #expect(exchange.result.response?.startLine == "HTTP/1.1 200 OK")
            #expect(exchange.result.verdict == nil && !exchange.result.handshakeCompleted && exchange.result.failure == nil)
            #expect(exchange.originRequests == ["POST /login"])
            let request = NetworkWorld.login.serialized.count
            let response = TestApplication().respond(to: NetworkWorld.login).serialized.count
            #expect(
                exchange.log.text == """
                    client           plain HTTP to 'bank.test': no TLS handshake, no certificate to judge; the request goes out readable by anyone on the path
                    client → origin  unencrypted data, \(request) bytes (HTTP request POST /login), readable by anyone on the path
                    origin           received HTTP request POST /login
                    origin → client  unencrypted data, \(response) bytes (HTTP response 200 OK), readable by anyone on the path
                    client           received HTTP response 200 OK
                    """)
        }

        @Test(arguments: [false, true])
        func throughTheProxyTheAttackerReadsThePasswordAndTheBankStillGetsTheRequest(viaConnect: Bool) throws {
            let exchange = try PlainExchange(throughProxy: { viaConnect ? .httpProxy(port: $0) : .direct(port: $0) })

            #expect(exchange.result.response?.startLine == "HTTP/1.1 200 OK")
            let flow = try #require(exchange.flows.first)
            #expect(flow.host == "bank.test")
            #expect(String(decoding: flow.plaintextFromClient, as: UTF8.self).contains("password=hunter2"))
            #expect(String(decoding: flow.plaintextFromOrigin, as: UTF8.self).contains("Session token: 0123"))
            #expect(exchange.originRequests == ["POST /login"])
            #expect(
                exchange.log.events.contains {
                    $0.actor == .proxy
                        && $0.kind
                            == .plaintextRead(
                                from: .client, bytes: flow.plaintextBytes.fromClient,
                                preview: (viaConnect ? "POST http://bank.test/login HTTP/1.1" : "POST /login HTTP/1.1") + " | username=alice&password=hunter2")
                }, "\(exchange.log.text)")
        }

        @Test func aProxyWithASiteAnswersPlainRequestsItselfEvenForARoutedHost() throws {
            let exchange = try PlainExchange(throughProxy: { .direct(port: $0) }, site: TestApplication())

            #expect(exchange.result.response?.startLine == "HTTP/1.1 200 OK")
            #expect(exchange.flows.first?.answer == "200 OK")
            #expect(exchange.originRequests.isEmpty)
        }
    }
}
