import Foundation
import PKI
import Policies
import Testing

/// curl's VERIFYHOST, VERIFYPEER and `--pinnedpubkey`, on real chains of the bank world under OpenSSL's rules.
struct CurlTests {
    static let world = BankWorld.shared
    static let start = AFFixtures.date("2026-01-01T00:00:00Z"), end = AFFixtures.date("2027-01-01T00:00:00Z")
    static let leafPin = CurlPinnedPublicKey.hashes(world.leaf.certificate.publicKeyPin)

    /// A leaf signed by the bank's intermediate (device-trusted), with the names given.
    static func leaf(_ label: String, dnsNames: [String], commonName: String? = nil, ipAddresses: [String] = []) throws -> [Certificate] {
        var spec = CertificateSpec.serverLeaf(label: label, dnsNames: dnsNames, ipAddresses: ipAddresses, notBefore: start, notAfter: end)
        spec.subject = DistinguishedName(commonName: commonName ?? dnsNames.first)
        return [try world.factory.makeIdentity(spec, signedBy: world.intermediate).certificate, world.intermediate.certificate]
    }

    static func evaluate(_ options: CurlOptions, _ chain: [Certificate], attackerInstalled: Bool = false, host: String = "bank.test") -> PolicyEvaluation {
        CurlClient(options: options).evaluate(
            PresentedConnection(
                serverTrust: world.trust(chain, attackerInstalled: attackerInstalled), negotiated: AppTransportSecurityTests.tls13, host: host, domain: nil))
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let options: CurlOptions
        let chain: TrustKitTests.Chain
        var attackerInstalled = false
        var host = "bank.test"
        let trusted: Bool
        let deciding: TraceStep.Check?
        var rejection: String? = nil
        var exit: CurlCode? = nil
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "the real chain verifies against the CA bundle, then names the host", options: CurlOptions(), chain: .real, trusted: true,
            deciding: .curlVerifyHost),
        Case(
            name: "a forgery from an untrusted CA fails OpenSSL's verification", options: CurlOptions(), chain: .forged, trusted: false,
            deciding: .curlVerifyPeer, rejection: "untrustedRoot", exit: .peerFailedVerification),
        Case(
            name: "a CA installed on the machine is in the bundle, so its forgery verifies", options: CurlOptions(), chain: .forged,
            attackerInstalled: true, trusted: true, deciding: .curlVerifyHost),
        Case(
            name: "the pinned leaf key refuses a forgery from an installed CA", options: CurlOptions(pinnedPublicKey: leafPin), chain: .forged,
            attackerInstalled: true, trusted: false, deciding: .curlPinnedPublicKey, rejection: "curlPinnedPublicKeyMismatch",
            exit: .sslPinnedPublicKeyNotMatch),
        Case(name: "-k accepts an untrusted forgery when nothing is pinned", options: .insecure(), chain: .forged, trusted: true, deciding: nil),
        Case(
            name: "-k still enforces --pinnedpubkey", options: .insecure(pinnedPublicKey: leafPin), chain: .forged, trusted: false,
            deciding: .curlPinnedPublicKey, rejection: "curlPinnedPublicKeyMismatch", exit: .sslPinnedPublicKeyNotMatch),
        Case(
            name: "-k with the pin accepts the real server", options: .insecure(pinnedPublicKey: leafPin), chain: .real, trusted: true,
            deciding: .curlPinnedPublicKey),
        Case(
            name: "a certificate the bank's CA mis-issued verifies when only the bundle decides", options: CurlOptions(), chain: .misIssued,
            trusted: true, deciding: .curlVerifyHost),
        Case(
            name: "the leaf pin refuses a mis-issued certificate", options: CurlOptions(pinnedPublicKey: leafPin), chain: .misIssued, trusted: false,
            deciding: .curlPinnedPublicKey, rejection: "curlPinnedPublicKeyMismatch", exit: .sslPinnedPublicKeyNotMatch),
        Case(
            name: "pinning the intermediate's key refuses even the real server: curl pins the leaf only",
            options: CurlOptions(pinnedPublicKey: .hashes(world.intermediate.certificate.publicKeyPin)), chain: .real, trusted: false,
            deciding: .curlPinnedPublicKey, rejection: "curlPinnedPublicKeyMismatch", exit: .sslPinnedPublicKeyNotMatch),
        Case(
            name: "the appended pinned certificate is not the leaf", options: CurlOptions(pinnedPublicKey: leafPin), chain: .appendedPinnedLeaf,
            attackerInstalled: true, trusted: false, deciding: .curlPinnedPublicKey, rejection: "curlPinnedPublicKeyMismatch",
            exit: .sslPinnedPublicKeyNotMatch),
        Case(
            name: "an expired chain fails OpenSSL's verification", options: CurlOptions(pinnedPublicKey: leafPin), chain: .expired, trusted: false,
            deciding: .curlVerifyPeer, rejection: "expired", exit: .peerFailedVerification),
        Case(
            name: "a trusted chain for another host fails VERIFYHOST", options: CurlOptions(), chain: .real, host: "other.test", trusted: false,
            deciding: .curlVerifyHost, rejection: "curlHostNameMismatch", exit: .peerFailedVerification),
        Case(
            name: "-k skips the host check too", options: .insecure(), chain: .real, host: "other.test", trusted: true, deciding: nil),
    ]

    @Test("curl 7.88.1 decides as its handshake and servercert do", arguments: cases)
    func decides(_ testCase: Case) throws {
        let evaluation = Self.evaluate(
            testCase.options, try testCase.chain.certificates(Self.world), attackerInstalled: testCase.attackerInstalled, host: testCase.host)
        #expect(evaluation.isTrusted == testCase.trusted, "\(evaluation.steps)")
        #expect(evaluation.decidingStep?.check == testCase.deciding, "\(evaluation.steps)")
        #expect(evaluation.rejection?.code == testCase.rejection)
        #expect(CurlClient.exitCode(of: evaluation) == testCase.exit)
        #expect(evaluation.urlError == nil)
    }

    @Test("The trace of -k with a pin says the pin is checked anyway")
    func insecureTrace() {
        let evaluation = Self.evaluate(.insecure(pinnedPublicKey: Self.leafPin), Self.world.forgedChain)
        let forged = Self.world.forged.certificate
        #expect(
            evaluation.steps == [
                TraceStep(.curlVerifyHost, .skipped, "CURLOPT_SSL_VERIFYHOST is 0 (-k), so the leaf's names are not compared with 'bank.test'"),
                TraceStep(
                    .curlVerifyPeer, .skipped,
                    "SSL certificate OpenSSL verify result: self-signed certificate in certificate chain (19), verifying against curl's CA bundle "
                        + "(the device's trust store): 'Attacker CA' is self-signed and is not among the trust anchors. CURLOPT_SSL_VERIFYPEER is 0 (-k): "
                        + "SSL certificate verification failed, continuing anyway!"),
                TraceStep(
                    .curlPinnedPublicKey, .failed,
                    "the key of the leaf 'forged bank.test' hashes to \(forged.publicKeyPin), not among the pinned "
                        + "\(Self.world.leaf.certificate.publicKeyPin) (checked even with -k): CURLE_SSL_PINNEDPUBKEYNOTMATCH (90)"),
            ])
    }

    // MARK: - VERIFYHOST, curl's own host name check

    @Test(
        "curl's host check",
        arguments: [
            (["bank.test"], nil as String?, "bank.test", true),
            (["BANK.test."], nil, "bank.test", true),
            (["*.bank.test"], nil, "www.bank.test", true),
            (["*.bank.test"], nil, "bank.test", false),
            (["*.bank.test"], nil, "a.b.bank.test", false),
            // A pattern with one dot is compared as written.
            (["*.test"], nil, "bank.test", false),
            (["b*.bank.test"], nil, "bb.bank.test", false),
            // No SAN: the common name decides, which Apple never uses.
            ([], "bank.test", "bank.test", true),
            ([], "*.bank.test", "www.bank.test", true),
            ([], "other.test", "bank.test", false),
            // A SAN with a DNS name: the common name is never looked at.
            (["other.test"], "bank.test", "bank.test", false),
        ])
    func hostCheck(dnsNames: [String], commonName: String?, host: String, matches: Bool) throws {
        let chain = try Self.leaf("leaf", dnsNames: dnsNames, commonName: commonName ?? dnsNames.first)
        let step = Self.evaluate(CurlOptions(), chain, host: host).steps.first { $0.check == .curlVerifyHost }
        #expect(step?.outcome == (matches ? .passed : .failed), "\(String(describing: step))")
    }

    @Test("An IP address host is matched against the SAN's IP entries only")
    func ipAddressHost() throws {
        let chain = try Self.leaf("ip leaf", dnsNames: ["127.0.0.1"], commonName: "127.0.0.1", ipAddresses: ["127.0.0.1"])
        #expect(Self.evaluate(CurlOptions(), chain, host: "127.0.0.1").decidingStep?.outcome == .passed)
        let dnsOnly = try Self.leaf("dns leaf", dnsNames: ["127.0.0.1"])
        let refused = Self.evaluate(CurlOptions(), dnsOnly, host: "127.0.0.1").decidingStep
        #expect(
            refused
                == TraceStep(
                    .curlVerifyHost, .failed,
                    "SSL: no alternative certificate subject name matches target IPv4 address '127.0.0.1' (the SAN of 'dns leaf' lists '127.0.0.1'; "
                        + "curl never falls back to the common name when the SAN has a DNS name or an IP address): CURLE_PEER_FAILED_VERIFICATION (60)"))
    }

    // MARK: - --pinnedpubkey values, --cacert

    @Test("curl compares each sha256// entry and stops at the first without the prefix")
    func pinList() {
        let pin = Self.world.leaf.certificate.publicKeyPin
        let other = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        #expect(Self.evaluate(CurlOptions(pinnedPublicKey: .hashes("\(other);\(pin)")), Self.world.realChain).isTrusted)
        let stopped = Self.evaluate(CurlOptions(pinnedPublicKey: .hashes("\(other);sha1//x;\(pin)")), Self.world.realChain)
        #expect(stopped.rejection == .curlPinnedPublicKeyMismatch)
        #expect(stopped.decidingStep?.detail.contains("curl stops at 'sha1//x;\(pin)', which does not start with sha256//") == true)
    }

    @Test("A public-key file pins the leaf's key, as PEM or DER")
    func pinFile() {
        let spki = Self.world.leaf.certificate.publicKeyInfo
        let pem = "-----BEGIN PUBLIC KEY-----\n\(Data(spki).base64EncodedString(options: .lineLength64Characters))\n-----END PUBLIC KEY-----\n"
        #expect(Self.evaluate(CurlOptions(pinnedPublicKey: .file(name: "bank.pem", contents: Array(pem.utf8))), Self.world.realChain).isTrusted)
        #expect(Self.evaluate(CurlOptions(pinnedPublicKey: .file(name: "bank.der", contents: spki)), Self.world.realChain).isTrusted)
        let other = CurlOptions(pinnedPublicKey: .file(name: "root.der", contents: Self.world.root.certificate.publicKeyInfo))
        #expect(Self.evaluate(other, Self.world.realChain).rejection == .curlPinnedPublicKeyMismatch)
    }

    @Test("--cacert replaces the bundle, and any certificate in it may end the chain")
    func caCertificates() {
        let intermediateOnly = CurlOptions(caCertificates: [Self.world.intermediate.certificate])
        let evaluation = Self.evaluate(intermediateOnly, Self.world.realChain)
        #expect(evaluation.path == [Self.world.leaf.certificate, Self.world.intermediate.certificate])
        #expect(
            evaluation.steps.first?.detail
                == "OpenSSL verifies the chain against the --cacert bundle: path 'bank.test' -> 'Bank Intermediate', ending at 'Bank Intermediate', "
                + "in the handshake (SSL_VERIFY_PEER)")
        let bankRootOnly = CurlOptions(caCertificates: [Self.world.root.certificate])
        #expect(Self.evaluate(bankRootOnly, Self.world.forgedChain, attackerInstalled: true).rejection?.code == "untrustedRoot")
    }
}
