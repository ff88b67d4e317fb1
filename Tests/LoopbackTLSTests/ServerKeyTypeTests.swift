import Foundation
import LoopbackTLS
import PKI
import Policies
import TestSupport
import Testing

extension NetworkTests {
    /// mitmsim's TLS clients read the server's certificates with only the key decoders a TLS chain needs (the
    /// proxy reads the server's chain on every connection). A server whose leaf holds any key type it can sign a
    /// handshake with, as a lesson's own certificate files may, still has its key read: by the app, whose judge
    /// is shown it, and by the proxy, which relays the login only after checking the server's signature with it.
    @Suite struct ServerKeyTypeTests {
        let world = NetworkWorld.shared
        let acceptsAnyChain = SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false)

        /// A key made by the real openssl's `genpkey -algorithm` with these arguments (DSA from 1024-bit parameters it
        /// makes first, which takes milliseconds).
        static func key(_ type: String) throws -> PrivateKey {
            let command =
                type == "DSA"
                ? "openssl genpkey -genparam -algorithm DSA -pkeyopt dsa_paramgen_bits:1024 | openssl genpkey -paramfile /dev/stdin"
                : "openssl genpkey -algorithm \(type)"
            let made = try Subprocess.run("/bin/bash", ["-o", "pipefail", "-c", command])
            try #require(made.status == 0, "\(made.output)")
            return try PrivateKey(pem: Array(made.output.utf8), source: type)
        }

        /// The bank serving a leaf with a key of `leafType`, issued by an intermediate with a key of `intermediateType`
        /// under the bank's root (P-256 where nil); at OpenSSL's security level 0 when the intermediate is DSA-1024.
        func origin(leaf leafType: String? = nil, intermediate intermediateType: String? = nil) throws -> OriginServer.Configuration {
            let start = NetworkWorld.clock.addingTimeInterval(-86_400)
            let end = NetworkWorld.clock.addingTimeInterval(86_400)
            func identity(_ spec: CertificateSpec, _ type: String?, signedBy issuer: Identity) throws -> Identity {
                guard let type else { return try world.factory.makeIdentity(spec, signedBy: issuer) }
                let key = try Self.key(type)
                return Identity(certificate: try world.factory.issue(spec, key: key, signedBy: issuer), privateKey: key)
            }
            let intermediate = try identity(
                .authority(label: "Bank Intermediate (\(intermediateType ?? "EC"))", commonName: "Bank Intermediate", notBefore: start, notAfter: end),
                intermediateType, signedBy: world.root)
            let leaf = try identity(
                .serverLeaf(label: "bank.test (\(leafType ?? "EC"))", dnsNames: ["bank.test"], notBefore: start, notAfter: end), leafType,
                signedBy: intermediate)
            return OriginServer.Configuration(
                application: TestApplication(), identity: leaf, chain: [leaf.certificate, intermediate.certificate],
                allowsWeakCryptography: intermediateType == "DSA")
        }

        @Test(arguments: [("ED25519", "ED25519 256"), ("ED448", "ED448 456"), ("RSA-PSS", "RSASSA-PSS 2048")])
        func theAppsJudgeIsShownTheKeyOfTheServersLeaf(type: String, description: String) throws {
            let exchange = try Exchange(policy: acceptsAnyChain, origin: origin(leaf: type))

            #expect(exchange.judgedChain.map(\.keyDescription) == [description, "EC P-256"], "\(exchange.log.text)")
            #expect(exchange.originRequests == ["POST /login"])
        }

        @Test(arguments: ["ED25519", "ED448", "RSA-PSS"])
        func theProxyChecksTheServersSignatureAndRelaysTheLogin(type: String) throws {
            let exchange = try Exchange(policy: acceptsAnyChain, attack: .selfSigned, origin: origin(leaf: type))

            #expect(exchange.result.handshakeCompleted, "\(exchange.log.text)")
            #expect(exchange.flows.first?.plaintextFromClient.containsText("password=hunter2") == true)
            #expect(exchange.originRequests == ["POST /login"])
        }

        /// DSA signs no TLS 1.3 handshake, and none in TLS 1.2 with the suites mitmsim's servers offer, but a CA may
        /// still have signed the leaf with it.
        @Test func theAppsJudgeIsShownTheKeyOfADSAIntermediate() throws {
            let exchange = try Exchange(policy: acceptsAnyChain, origin: origin(intermediate: "DSA"), weakClient: true)

            #expect(exchange.judgedChain.map(\.keyDescription) == ["EC P-256", "DSA 1024"], "\(exchange.log.text)")
        }
    }
}
