import Foundation
import LoopbackTLS
import PKI
import Policies
import Testing

extension NetworkTests {
    /// Real servers that break App Transport Security's rules, on 127.0.0.1: old TLS versions, RSA key
    /// exchange, weak leaves. OpenSSL 3.0 serves and accepts them only when both ends opt in to weak
    /// cryptography; what the handshake settled reaches the client's judge with the chain.
    @Suite struct WeakServerTests {
        let world = NetworkWorld.shared

        /// The bank's chain with a leaf of `keyType`, signed with `digest`.
        func origin(keyType: KeyType = .p256, digest: SignatureDigest = .sha256, versions: ClosedRange<TLSVersion>) throws -> OriginServer.Configuration {
            var spec = CertificateSpec.serverLeaf(
                label: "bank.test (\(keyType.rawValue), \(digest))", dnsNames: ["bank.test"], notBefore: NetworkWorld.clock.addingTimeInterval(-86_400),
                notAfter: NetworkWorld.clock.addingTimeInterval(86_400))
            spec.signatureDigest = digest
            let leaf = try world.factory.makeIdentity(spec, keyType: keyType, signedBy: world.intermediate)
            return OriginServer.Configuration(
                application: TestApplication(), identity: leaf, chain: [leaf.certificate, world.intermediate.certificate], versions: versions,
                allowsWeakCryptography: true)
        }

        /// The handshake messages `actor` sent.
        func sent(by actor: NetworkEvent.Actor, in exchange: Exchange) -> [HandshakeMessage] {
            exchange.events.filter { $0.actor == actor }.compactMap { if case .handshake(let message) = $0.kind { message } else { nil } }
        }

        @Test(arguments: [TLSVersion.tls10, .tls11])
        func anOldVersionOnlyServerAndAWeakClientNegotiateThatVersionAndTheJudgeSeesIt(version: TLSVersion) throws {
            let exchange = try Exchange(origin: origin(versions: version...version), weakClient: true)

            #expect(exchange.result.handshakeCompleted, "\(exchange.log.text)")
            #expect(exchange.negotiatedWhenJudged?.version == version)
            #expect(exchange.clientCompletedHandshake?.version == version.rawValue)
            #expect(sent(by: .origin, in: exchange).contains { if case .serverHello(version.rawValue, _) = $0 { true } else { false } })
            #expect(exchange.originRequests == ["POST /login"])
        }

        @Test(arguments: [TLSVersion.tls10, .tls11])
        func theSameServerAndADefaultClientHaveNoVersionInCommon(version: TLSVersion) throws {
            let exchange = try Exchange(origin: origin(versions: version...version))

            #expect(!exchange.result.handshakeCompleted)
            #expect(exchange.negotiatedWhenJudged == nil)
            #expect(exchange.events.contains { $0.actor == .origin && $0.kind.isAlert(named: "protocol_version") }, "\(exchange.log.text)")
            #expect(exchange.originRequests.isEmpty)
        }

        @Test func aServerWithoutForwardSecrecyNegotiatesRSAKeyExchangeAndTheJudgeSeesTheSuite() throws {
            var configuration = try origin(keyType: .rsa2048, versions: .tls12 ... .tls12)
            configuration.allowsWeakCryptography = false
            configuration.forwardSecrecy = false
            let exchange = try Exchange(origin: configuration)

            #expect(exchange.negotiatedWhenJudged == NegotiatedTLS(version: .tls12, cipherSuite: "TLS_RSA_WITH_AES_128_GCM_SHA256"))
            #expect(sent(by: .origin, in: exchange).contains(.serverHello(version: "TLS 1.2", cipher: "TLS_RSA_WITH_AES_128_GCM_SHA256")))
            // RSA key exchange: the server sends no ephemeral key.
            #expect(!sent(by: .origin, in: exchange).contains(.serverKeyExchange))
            #expect(exchange.originRequests == ["POST /login"])
        }

        @Test func tls10WithoutForwardSecrecyNegotiatesTheCBCSuite() throws {
            var configuration = try origin(keyType: .rsa2048, versions: .tls10 ... .tls10)
            configuration.forwardSecrecy = false
            let exchange = try Exchange(origin: configuration, weakClient: true)

            #expect(exchange.negotiatedWhenJudged == NegotiatedTLS(version: .tls10, cipherSuite: "TLS_RSA_WITH_AES_128_CBC_SHA"))
            #expect(exchange.result.handshakeCompleted)
        }

        /// The judge runs inside the client's handshake, after the ServerHello: up to TLS 1.2 the session has no
        /// suite yet then, only a pending one, and the judge must see the same suite the handshake completes with.
        @Test(arguments: TLSVersion.allCases)
        func theJudgeSeesTheVersionAndSuiteTheHandshakeCompletesWith(version: TLSVersion) throws {
            var configuration = try origin(versions: version...version)
            configuration.allowsWeakCryptography = version < .tls12
            let exchange = try Exchange(origin: configuration, weakClient: version < .tls12)

            let judged = try #require(exchange.negotiatedWhenJudged)
            #expect(judged.version == version)
            #expect(exchange.clientCompletedHandshake?.version == version.rawValue)
            #expect(exchange.clientCompletedHandshake?.cipher == judged.cipherSuite)
            #expect(judged.cipherSuite.hasPrefix(version == .tls13 ? "TLS_AES_" : "TLS_ECDHE_ECDSA_WITH_AES_"), "\(judged.cipherSuite)")
        }

        /// The TLS layer serves and carries a weak leaf; refusing it is the judge's business (iOS 13's rules,
        /// which an app that allows invalid certificates skips).
        @Test(arguments: [(KeyType.rsa1024, SignatureDigest.sha256), (.p256, .sha1)])
        func aWeakLeafIsServedWhenBothEndsAllowWeakCryptography(keyType: KeyType, digest: SignatureDigest) throws {
            let configuration = try origin(keyType: keyType, digest: digest, versions: .tls12 ... .tls13)
            let strict = try Exchange(origin: configuration, weakClient: true)
            let lax = try Exchange(
                policy: SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false), origin: configuration, weakClient: true)

            #expect(strict.result.verdict?.rejection != nil)
            #expect(strict.events.contains { $0.actor == .origin && $0.kind == .handshake(.certificate(chain: configuration.chain.map(\.label))) })
            #expect(lax.result.handshakeCompleted, "\(lax.log.text)")
            #expect(lax.originRequests == ["POST /login"])
        }

        @Test(arguments: [(KeyType.rsa1024, SignatureDigest.sha256), (.p256, .sha1)])
        func withoutWeakCryptographyAServerRefusesToLoadAWeakLeaf(keyType: KeyType, digest: SignatureDigest) throws {
            var configuration = try origin(keyType: keyType, digest: digest, versions: .tls12 ... .tls13)
            configuration.allowsWeakCryptography = false
            #expect(throws: NetworkError.self) { try OriginServer(configuration, log: EventLog()) }
        }

        @Test func settingsOpenSSLWouldRefuseAtTheFirstHandshakeAreRefusedAtOnce() throws {
            var oldVersion = try origin(versions: .tls10 ... .tls12)
            oldVersion.allowsWeakCryptography = false
            var forwardSecrecyOffWithTLS13 = try origin(keyType: .rsa2048, versions: .tls12 ... .tls13)
            forwardSecrecyOffWithTLS13.forwardSecrecy = false
            var forwardSecrecyOffWithAnECLeaf = try origin(versions: .tls12 ... .tls12)
            forwardSecrecyOffWithAnECLeaf.forwardSecrecy = false

            for configuration in [oldVersion, forwardSecrecyOffWithTLS13, forwardSecrecyOffWithAnECLeaf] {
                #expect {
                    try OriginServer(configuration, log: EventLog())
                } throws: { error in
                    if case NetworkError.unusableConfiguration = error { true } else { false }
                }
            }
        }
    }
}
