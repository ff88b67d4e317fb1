import Foundation
import LoopbackTLS
import PKI
import Policies
import Testing

extension NetworkTests {
    @Suite struct TwoWayAndVersionTests {
        let world = NetworkWorld.shared

        var twoWayOrigin: OriginServer.Configuration {
            var configuration = world.origin
            configuration.clientAuthorities = [world.clientCA.certificate]
            return configuration
        }

        /// The identity as the app ships it: a `.p12` opened with its password.
        func clientP12() throws -> Identity {
            try Identity(pkcs12: world.clientIdentity.pkcs12(password: "123456"), password: "123456", source: "client.p12")
        }

        @Test func twoWayTLSWithTheClientsP12Succeeds() throws {
            let exchange = try Exchange(origin: twoWayOrigin, clientIdentity: clientP12())
            #expect(exchange.result.handshakeCompleted)
            #expect(exchange.result.certificateRequested)
            #expect(exchange.originRequests == ["POST /login"])
            #expect(exchange.events.contains(NetworkEvent(.client, .handshake(.certificate(chain: ["Mobile App"])), to: .origin)))
        }

        @Test func aServerThatAsksForNoCertificateLeavesCertificateRequestedFalse() throws {
            let exchange = try Exchange(clientIdentity: clientP12())
            #expect(exchange.result.handshakeCompleted)
            #expect(!exchange.result.certificateRequested)
        }

        @Test func twoWayTLSWithoutAClientCertificateFailsAndTheRequestNeverArrives() throws {
            let exchange = try Exchange(origin: twoWayOrigin)
            #expect(exchange.result.certificateRequested)
            #expect(exchange.originRequests.isEmpty)
            #expect(exchange.events.contains { $0.actor == .origin && $0.kind.isAlert(named: "certificate_required") })
        }

        @Test(arguments: TLSVersion.allCases)
        func throughAForgingProxyTheClientAcceptsButTheUpstreamFailsWithoutAClientKey(version: TLSVersion) throws {
            var origin = twoWayOrigin
            origin.versions = version...version
            origin.allowsWeakCryptography = version < .tls12
            let exchange = try Exchange(
                attack: .forge(authority: world.attackerCA), trusts: [world.attackerCA.certificate],
                origin: origin, clientIdentity: clientP12(), weakClient: version < .tls12)

            #expect(exchange.result.verdict?.isTrusted == true)
            let flow = try #require(exchange.flows.first)
            #expect(flow.clientAccepted)
            #expect(flow.upstreamFailure != nil)
            #expect(exchange.events.contains { $0.actor == .proxy && { if case .upstreamFailed = $0 { true } else { false } }($0.kind) })
            #expect(exchange.originRequests.isEmpty)
        }

        @Test(arguments: TLSVersion.allCases)
        func everyVersionCarriesTheExchangeDirectlyAndThroughTheForgingProxy(version: TLSVersion) throws {
            var origin = world.origin
            origin.versions = version...version
            origin.allowsWeakCryptography = version < .tls12
            for attack in [nil, Attack.forge(authority: world.attackerCA)] {
                let exchange = try Exchange(attack: attack, trusts: [world.attackerCA.certificate], origin: origin, weakClient: version < .tls12)
                #expect(exchange.result.handshakeCompleted)
                let serverHellos = exchange.events.compactMap { event -> String? in
                    if case .handshake(.serverHello(let negotiated, _)) = event.kind, event.actor == .origin { return negotiated }
                    return nil
                }
                #expect(serverHellos == [version.rawValue])
            }
        }

        @Test func tls12HandshakesShowTheirOwnMessages() throws {
            var origin = world.origin
            origin.versions = .tls12 ... .tls12
            let exchange = try Exchange(origin: origin)
            let sent = exchange.events.filter { $0.actor == .origin }.compactMap { event -> HandshakeMessage? in
                if case .handshake(let message) = event.kind { return message }
                return nil
            }
            #expect(sent.contains(.serverKeyExchange) && sent.contains(.serverHelloDone) && !sent.contains(.encryptedExtensions))
        }
    }
}
