import Foundation
import PKI
import Policies
import Testing

/// curl's order of checks by release (lib/vtls/openssl.c): up to 8.16 VERIFYPEER fails the handshake before the
/// host name is looked at; from 8.17 the host name comes first.
struct CurlReleaseTests {
    static let world = BankWorld.shared

    /// A genuine certificate for another host, from a CA the machine does not trust: both checks would fail.
    static func wrongHostFromUnknownCA() throws -> PresentedConnection {
        let other = try world.factory.makeIdentity(
            .serverLeaf(
                label: "other.test", dnsNames: ["other.test"], notBefore: world.leaf.certificate.notBefore, notAfter: world.leaf.certificate.notAfter),
            signedBy: world.attackerCA)
        return PresentedConnection(
            serverTrust: world.trust([other.certificate, world.attackerCA.certificate]), negotiated: AndroidWorld.tls13, host: "bank.test",
            domain: nil)
    }

    @Test("curl 7.88.1 refuses a forged chain for the wrong host on the chain, in the handshake; 8.17 on the host name")
    func order() throws {
        let connection = try Self.wrongHostFromUnknownCA()
        let old = CurlClient().evaluate(connection)
        #expect(old.steps.map(\.check) == [.curlVerifyPeer])
        #expect(old.decidingStep?.detail.contains("SSL_VERIFY_PEER ends the handshake before the host name is looked at. SSL certificate problem") == true)
        #expect(CurlClient.exitCode(of: old) == .peerFailedVerification)

        let new = CurlClient(release: .curl8_17).evaluate(connection)
        #expect(new.steps.map(\.check) == [.curlVerifyHost])
        #expect(CurlClient.exitCode(of: new) == .peerFailedVerification)
    }

    @Test("With -k both releases compare the host first and only note OpenSSL's verify result", arguments: CurlClient.Release.allCases)
    func insecure(release: CurlClient.Release) throws {
        let evaluation = CurlClient(release: release, options: CurlOptions(verifyPeer: false, verifyHost: true)).evaluate(
            try Self.wrongHostFromUnknownCA())
        #expect(evaluation.steps.map(\.check) == [.curlVerifyHost])
        #expect(evaluation.decidingStep?.outcome == .failed)
    }

    @Test("The model named curl is the release Debian ships here, and curl-8.17 is the other")
    func names() {
        #expect(CurlClient().release == .curl7_88)
        #expect(CurlClient.Release.allCases.map(\.rawValue) == ["curl", "curl-8.17"])
    }
}
