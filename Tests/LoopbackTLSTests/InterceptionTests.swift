import Foundation
import PKI
import Policies
import Testing

@testable import LoopbackTLS

/// Network tests share one parent suite that runs its tests one at a time, so thread and descriptor
/// counts taken in `HygieneTests` are not disturbed by another exchange.
@Suite(.serialized) struct NetworkTests {}

extension NetworkTests {
    /// Real handshakes on 127.0.0.1 with AFSecurityPolicy as the client's judge.
    @Suite struct InterceptionTests {
        let world = NetworkWorld.shared

        @Test func theDefaultPolicyRejectsAForgeryFromAnUntrustedCAAndNothingLeaks() throws {
            let exchange = try Exchange(attack: .forge(authority: world.attackerCA))

            #expect(!exchange.result.handshakeCompleted)
            #expect(exchange.result.verdict?.rejection?.code == "untrustedRoot")
            #expect(
                exchange.events.contains(
                    NetworkEvent(
                        .client,
                        .alert(
                            level: "fatal", name: "bad_certificate",
                            reason: "the client's judge rejected the presented chain"), to: .proxy)))
            #expect(exchange.events.contains { $0.actor == .proxy && $0.kind == .handshake(.certificate(chain: ["forged bank.test", "Attacker CA"])) })
            #expect(exchange.flows.first?.sawPlaintext == false)
            #expect(exchange.originRequests.isEmpty)
        }

        @Test func withTheAttackerCAInstalledTheForgeryIsAcceptedAndTheAttackerReadsThePassword() throws {
            let exchange = try Exchange(attack: .forge(authority: world.attackerCA), trusts: [world.attackerCA.certificate])

            #expect(exchange.result.handshakeCompleted)
            #expect(exchange.result.response?.startLine == "HTTP/1.1 200 OK")
            #expect(exchange.flows.first?.plaintextFromClient.containsText("password=hunter2") == true)
            #expect(exchange.flows.first?.plaintextFromOrigin.containsText("Session token") == true)
            #expect(
                exchange.events.contains(
                    NetworkEvent(
                        .proxy,
                        .plaintextRead(
                            from: .client, bytes: NetworkWorld.login.serialized.count, preview: "POST /login HTTP/1.1 | username=alice&password=hunter2"))))
            #expect(
                exchange.events.contains(
                    NetworkEvent(
                        .client,
                        .applicationData(
                            bytes: NetworkWorld.login.serialized.count, summary: "HTTP request POST /login"), to: .proxy)))
            #expect(exchange.originRequests == ["POST /login"])
        }

        @Test(arguments: [(SSLPinningMode.certificate, TraceStep.Check.pinnedAnchors), (.publicKey, .pinnedPublicKeyMatch)])
        func pinningTheRealLeafRejectsTheForgeryEvenWithTheAttackerCAInstalled(mode: SSLPinningMode, deciding: TraceStep.Check) throws {
            let policy = SecurityPolicy.policy(withPinningMode: mode, pinnedCertificates: [world.leaf.certificate])
            let exchange = try Exchange(policy: policy, attack: .forge(authority: world.attackerCA), trusts: [world.attackerCA.certificate])

            #expect(!exchange.result.handshakeCompleted)
            #expect(exchange.result.verdict?.decidingStep?.check == deciding)
            #expect(exchange.flows.first?.sawPlaintext == false)
            #expect(exchange.originRequests.isEmpty)
        }

        @Test func allowingInvalidCertificatesWithoutDomainValidationAcceptsASelfSignedForgery() throws {
            let policy = SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false)
            let exchange = try Exchange(policy: policy, attack: .selfSigned)

            #expect(exchange.result.handshakeCompleted)
            #expect(exchange.result.verdict?.decidingStep?.check == .allowInvalidOverride)
            #expect(exchange.flows.first?.presentedChain == ["self-signed bank.test"])
            #expect(exchange.flows.first?.plaintextFromClient.containsText("password=hunter2") == true)
        }

        @Test func passthroughLetsTheAttackerSeeOnlyTheServerNameAndSizes() throws {
            let exchange = try Exchange(attack: .passthrough)

            #expect(exchange.result.handshakeCompleted)
            let flow = try #require(exchange.flows.first)
            #expect(flow.host == "bank.test")
            #expect(!flow.sawPlaintext)
            #expect(flow.opaqueBytes.fromClient > NetworkWorld.login.serialized.count)
            #expect(
                exchange.events.contains(
                    NetworkEvent(
                        .client,
                        .applicationData(
                            bytes: NetworkWorld.login.serialized.count, summary: "HTTP request POST /login"), to: .origin)))
            #expect(exchange.events.last?.kind == .relayed(recordsFromClient: 4, recordsFromOrigin: 6))
            #expect(exchange.originRequests == ["POST /login"])
        }

        @Test func aReplayedRealChainFailsAtCertificateVerifyAndNothingLeaks() throws {
            let exchange = try Exchange(attack: .replayRealChain)

            #expect(!exchange.result.handshakeCompleted)
            #expect(exchange.result.verdict?.isTrusted == true, "the chain itself is the real one")
            #expect(exchange.events.contains { $0.actor == .client && $0.peer == .proxy && $0.kind.isAlert(named: "decrypt_error") })
            #expect(exchange.result.failure?.contains("does not hold that key") == true)
            #expect(exchange.flows.first?.sawPlaintext == false)
            #expect(exchange.originRequests.isEmpty)
        }

        @Test func aStolenKeyDefeatsPinning() throws {
            let policy = SecurityPolicy.policy(withPinningMode: .certificate, pinnedCertificates: [world.leaf.certificate])
            let exchange = try Exchange(policy: policy, attack: .stolenKey(world.leaf.privateKey))

            #expect(exchange.result.handshakeCompleted)
            #expect(exchange.result.verdict?.decidingStep?.check == .pinnedCertificateMatch)
            #expect(exchange.flows.first?.plaintextFromClient.containsText("password=hunter2") == true)
        }

        @Test func aMisissuedCertificateFromATrustedCAPassesWithoutPinningButNotWithALeafPin() throws {
            let trusting = [world.trustedCA.certificate]
            let unpinned = try Exchange(attack: .misissued(authority: world.trustedCA), trusts: trusting)
            #expect(unpinned.result.handshakeCompleted)
            #expect(unpinned.flows.first?.presentedChain == ["forged bank.test", "Public CA"])

            let pinned = try Exchange(
                policy: .policy(withPinningMode: .publicKey, pinnedCertificates: [world.leaf.certificate]),
                attack: .misissued(authority: world.trustedCA), trusts: trusting)
            #expect(!pinned.result.handshakeCompleted)
        }

        @Test func aDownloadThroughTheProxyIsReadInFullAndReportedAsOneMessage() throws {
            let log = EventLog()
            let origin = try OriginServer(world.origin, log: log)
            let proxy = try InterceptingProxy(attack: .forge(authority: world.attackerCA), routes: ["bank.test": origin.port], log: log, factory: world.factory)
            let client = try TLSClient(
                host: "bank.test", trustStore: DeviceTrustStore(system: [world.root.certificate, world.attackerCA.certificate]), verifyDate: NetworkWorld.clock)
            let result = client.exchange(.direct(port: proxy.port), request: .request("GET", "/bytes/200000", host: "bank.test"), log: log) { _, _ in
                .init(accept: true, verdict: true, summary: "accepted")
            }
            proxy.stop()
            origin.stop()

            #expect(result.response?.body.count == 200_000)
            let flow = try #require(proxy.flows.first)
            let responseLength = flow.plaintextBytes.fromOrigin
            #expect(responseLength > 200_000)
            #expect(flow.plaintextFromOrigin.count == InterceptedFlow.keptPlaintext)
            let fromOrigin = log.events.filter { $0.actor == .proxy && $0.peer == .client }.compactMap { event -> Int? in
                if case .applicationData(let bytes, "HTTP response 200 OK") = event.kind { return bytes }
                return nil
            }
            #expect(fromOrigin == [responseLength])
        }

        @Test func anOriginThatSendsSessionTicketsIsRelayedWithoutStalling() throws {
            // The tickets reach the proxy first and alone: a client that pauses after its handshake makes
            // sure. A relay that waited on them would hit the 5-second socket timeout and answer nothing.
            var configuration = world.origin
            configuration.sessionTickets = 2
            let log = EventLog()
            let origin = try OriginServer(configuration, log: log)
            defer { origin.stop() }
            let proxy = try InterceptingProxy(attack: .forge(authority: world.attackerCA), routes: ["bank.test": origin.port], log: log, factory: world.factory)
            defer { proxy.stop() }

            let context = try TLSContext(role: .client)
            context.judgeServerCertificates()
            let connection = try TLSConnection(
                context: context, socket: Socket.connect(port: proxy.port), stream: log.makeStream(.client),
                isConnector: true, serverName: "bank.test")
            connection.judge = { _, _ in .accept }
            #expect(connection.handshake() == .completed)
            usleep(100_000)
            try connection.write(NetworkWorld.login.serialized[...], summary: "login")
            let response = try HTTPFraming(role: .response, longestBody: HTTPFraming.longestBody).readMessage(from: { try connection.read() })
            connection.close()

            #expect(response?.startLine == "HTTP/1.1 200 OK", "a relay waiting on the tickets times out instead")
        }

        @Test func throughHTTPConnectTheSameForgeryWorks() throws {
            let exchange = try Exchange(attack: .forge(authority: world.attackerCA), trusts: [world.attackerCA.certificate], viaConnect: true)
            #expect(exchange.result.handshakeCompleted)
            #expect(exchange.flows.first?.host == "bank.test")
            #expect(exchange.flows.first?.plaintextFromClient.containsText("password=hunter2") == true)
        }
    }
}

extension [UInt8] {
    func containsText(_ text: String) -> Bool { firstRange(of: Array(text.utf8)) != nil }
}

extension NetworkEvent.Kind {
    func isAlert(named expected: String) -> Bool {
        if case .alert(_, let name, _) = self { return name == expected }
        return false
    }
}
