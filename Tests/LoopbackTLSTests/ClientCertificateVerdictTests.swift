import Foundation
import PKI
import Testing

@testable import LoopbackTLS

extension NetworkTests {
    /// A TLS 1.3 origin judges the client certificate after the handshake; the proxy, which has none,
    /// learns that verdict from the protocol, so the transcript does not depend on how fast the link is.
    @Suite struct ClientCertificateVerdictTests {
        let world = NetworkWorld.shared

        @Test func overASlowLinkTheProxyStillHearsTheOriginRefuseItBeforePresentingAnything() throws {
            var configuration = world.origin
            configuration.clientAuthorities = [world.clientCA.certificate]
            configuration.versions = .tls13 ... .tls13
            let log = EventLog()
            let origin = try OriginServer(configuration, log: log)
            defer { origin.stop() }
            // Every answer of the origin arrives 1.1 s late: longer than any fixed wait a proxy might use.
            let link = try SlowLink(to: origin.port, delayingAnswersBy: 1_100_000)
            defer { link.stop() }
            let proxy = try InterceptingProxy(attack: .forge(authority: world.attackerCA), routes: ["bank.test": link.port], log: log, factory: world.factory)
            defer { proxy.stop() }
            let client = try TLSClient(host: "bank.test", trustStore: DeviceTrustStore(system: [world.attackerCA.certificate]), verifyDate: NetworkWorld.clock)
            _ = client.exchange(.direct(port: proxy.port), request: NetworkWorld.login, log: log) { _, _ in .init(accept: true, verdict: true, summary: "ok") }
            proxy.stop()

            let flow = try #require(proxy.flows.first)
            #expect(flow.upstreamFailure == "the peer sent alert certificate_required")
            let steps = log.events.filter { $0.actor == .proxy }.map(\.kind)
            let refused = try #require(steps.firstIndex { if case .upstreamFailed = $0 { true } else { false } })
            let presented = try #require(steps.firstIndex { if case .presenting = $0 { true } else { false } })
            #expect(refused < presented, "\(log.text)")
        }
    }
}

/// A TCP hop that forwards one connection, delaying every chunk that flows back from the server.
final class SlowLink: Sendable {
    private let listener: Socket
    private let thread: WorkerThread

    init(to port: UInt16, delayingAnswersBy delay: useconds_t) throws {
        let listener = try Socket.listen(port: 0)
        self.listener = listener
        thread = try WorkerThread {
            guard let client = try? listener.accept(), let server = try? Socket.connect(port: port) else { return }
            defer {
                client.close()
                server.close()
            }
            while true {
                let ready = Socket.waitReadable([client, server], timeout: Socket.defaultTimeout)
                guard !ready.isEmpty else { return }
                for index in ready {
                    let (source, target) = index == 0 ? (client, server) : (server, client)
                    guard let data = try? source.read(upTo: 65_536), !data.isEmpty else { return }
                    if index == 1 { usleep(delay) }
                    guard (try? target.write(data)) != nil else { return }
                }
            }
        }
    }

    var port: UInt16 { listener.localPort }

    func stop() {
        listener.shutdown()
        thread.join()
        listener.close()
    }
}
