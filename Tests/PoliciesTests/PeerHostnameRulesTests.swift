import Foundation
import PKI
import Policies
import Testing

/// Each peer library matches host names by its own rules, table by table from its source: OkHttp's
/// `OkHostnameVerifier` (4.12.0 and 3.1.1), Android's bundled copy, curl's `Curl_cert_hostcheck`, and the host
/// patterns of OkHttp's `CertificatePinner`.
struct PeerHostnameRulesTests {
    /// A leaf with the given SAN entries (and common name), issued by the bank's intermediate.
    static func leaf(dnsNames: [String], ipAddresses: [String] = [], commonName: String? = nil) throws -> Certificate {
        let world = BankWorld.shared
        let spec = CertificateSpec(
            label: "leaf", subject: DistinguishedName(commonName: commonName), dnsNames: dnsNames, ipAddresses: ipAddresses,
            notBefore: world.leaf.certificate.notBefore, notAfter: world.leaf.certificate.notAfter, basicConstraints: .endEntity,
            keyUsage: [.digitalSignature], extendedKeyUsage: [.serverAuth])
        return try world.factory.makeIdentity(spec, signedBy: world.intermediate).certificate
    }

    /// (SAN DNS name, host, accepted): `verifyHostname(hostname, pattern)` in `OkHostnameVerifier` at OkHttp
    /// `parent-4.12.0` and `parent-3.1.1`, which Android bundles too; the releases differ only in the common-name
    /// fallback (below).
    static let okHostnameVerifierTable: [(String, String, Bool)] = [
        ("bank.test", "bank.test", true),
        ("BANK.Test", "bank.test", true),
        ("bank.test.", "bank.test", true),
        ("bank.test", "bank.test.", true),
        ("*.test", "bank.test", true),
        ("*.bank.test", "www.bank.test", true),
        ("*.bank.test", "bank.test", false),
        ("*.bank.test", "a.b.bank.test", false),
        ("w*.bank.test", "www.bank.test", false),
        ("*", "bank", false),
        ("bank.test", "bänk.test", false),
        (".bank.test", "bank.test", false),
    ]

    @Test("OkHttp 4.12.0, OkHttp 3.1.1 and Android's bundled OkHostnameVerifier accept a host by the same table", arguments: okHostnameVerifierTable)
    func okHostnameVerifier(san: String, host: String, accepts: Bool) throws {
        let leaf = try Self.leaf(dnsNames: [san])
        for (name, verifier) in [("4.12.0", OkHostnameVerifier.okHttp4), ("3.1.1", .okHttp3), ("Android", .android)] {
            #expect((verifier.match(host: host, leaf: leaf) != nil) == accepts, "\(name): \(san) for \(host)")
        }
    }

    @Test("An IP address is compared with the SAN's IP addresses only; only OkHttp 3.1.1 falls back to the common name")
    func addressesAndCommonNames() throws {
        let addressed = try Self.leaf(dnsNames: ["127.0.0.1"], ipAddresses: ["127.0.0.2"])
        #expect(OkHostnameVerifier.okHttp4.match(host: "127.0.0.1", leaf: addressed) == nil)
        #expect(OkHostnameVerifier.okHttp4.match(host: "127.0.0.2", leaf: addressed) == .subjectAlternativeName("127.0.0.2"))
        let commonNameOnly = try Self.leaf(dnsNames: [], commonName: "*.test")
        #expect(OkHostnameVerifier.okHttp3.match(host: "bank.test", leaf: commonNameOnly) == .commonName("*.test"))
        #expect(OkHostnameVerifier.okHttp4.match(host: "bank.test", leaf: commonNameOnly) == nil)
        #expect(OkHostnameVerifier.android.match(host: "bank.test", leaf: commonNameOnly) == nil)
    }

    @Test(
        "The OkHttp and Network Security Config models accept a *.test SAN and a SAN with a trailing dot for bank.test",
        arguments: ["*.test", "bank.test."])
    func androidModelsUseOkHostnameVerifier(san: String) throws {
        let world = BankWorld.shared
        let leaf = try Self.leaf(dnsNames: [san])
        let trust = ServerTrust(
            certificates: [leaf, world.intermediate.certificate], deviceTrustStore: DeviceTrustStore(system: [world.root.certificate]),
            verifyDate: BankWorld.clock)
        let connection = PresentedConnection(serverTrust: trust, negotiated: AndroidWorld.tls13, host: "bank.test", domain: "bank.test")
        for model in [OkHttpClient() as any ClientModel, OkHttpClient(version: .beforeChainCleaning), AndroidNetworkSecurityClient()] {
            let evaluation = model.evaluate(connection)
            #expect(evaluation.isTrusted, "\(model): \(evaluation.steps.map(\.detail))")
        }
    }

    /// (SAN DNS name, host, curl accepts): `Curl_cert_hostcheck` in lib/vtls/hostcheck.c at curl-7_88_1.
    static let curlTable: [(String, String, Bool)] = [
        ("bank.test", "bank.test", true),
        ("BANK.test", "bank.test", true),
        ("bank.test.", "bank.test", true),
        ("bank.test", "bank.test.", true),
        ("*.bank.test", "www.bank.test", true),
        ("*.bank.test", "bank.test", false),
        ("*.bank.test", "a.b.bank.test", false),
        ("*.test", "bank.test", false),
        ("w*.bank.test", "www.bank.test", false),
    ]

    @Test("curl matches a host by its own table (RFC 6125 as hostcheck.c applies it)", arguments: curlTable)
    func curl(san: String, host: String, accepts: Bool) throws {
        let evaluation = CurlClient(options: .insecure()).evaluate(
            PresentedConnection(
                serverTrust: BankWorld.shared.trust([try Self.leaf(dnsNames: [san])]), negotiated: AndroidWorld.tls13, host: host, domain: host))
        let step = try #require(evaluation.steps.first { $0.check == .curlVerifyHost })
        // -k turns VERIFYHOST off; ask the check itself through a client that keeps it on.
        let strict = CurlClient(options: CurlOptions(verifyPeer: false, verifyHost: true)).evaluate(
            PresentedConnection(
                serverTrust: BankWorld.shared.trust([try Self.leaf(dnsNames: [san])]), negotiated: AndroidWorld.tls13, host: host, domain: host))
        #expect(step.outcome == .skipped)
        #expect((strict.steps.first { $0.check == .curlVerifyHost }?.outcome == .passed) == accepts, "\(san) for \(host)")
    }

    @Test(
        "CertificatePinner takes the host patterns OkHttp 4.12.0's Pin takes, *.test among them",
        arguments: [("*.test", true), ("**.test", true), ("bank.test", true), ("test", true), ("bank.*.test", false), ("*bank.test", false)])
    func pinPatterns(pattern: String, accepted: Bool) {
        let pin = "sha256/" + BankWorld.shared.leaf.certificate.publicKeySHA256Base64
        #expect(((try? CertificatePinner.Pin(pattern: pattern, pin: pin)) != nil) == accepted)
        let file = Array("\(pattern) \(pin)\n".utf8)
        #expect(((try? CertificatePinner.pins(inPinFile: file)) != nil) == accepted, "pin file: \(pattern)")
    }

    @Test("OkHttp 3.1.1 reads a **. pattern as a literal host name, and its trace says so")
    func doubleWildcardBeforeOkHttp4() throws {
        let world = AndroidWorld.shared
        let pin = CertificatePinner.Pin(pattern: "**.bank.test", certificate: world.leaf)
        let old = OkHttpClient(version: .beforeChainCleaning, certificatePinner: CertificatePinner(pins: [pin]))
        let evaluation = old.evaluate(world.connection(world.realChain))
        let pinner = try #require(evaluation.steps.first { $0.check == .okHttpCertificatePinner })
        #expect(pinner.outcome == .skipped)
        #expect(pinner.detail.contains("this release reads '**.bank.test' as a literal host name: '**.' patterns came in OkHttp 4.3"), "\(pinner.detail)")
        #expect(CertificatePinner(pins: [pin]).findMatchingPins("bank.test", version: .current) == [pin])
    }
}
