import Foundation
import PKI
import Policies
import Testing

/// Conscrypt's TrustManagerImpl, which OkHttp on Android and the Network Security Config share: the trust anchor
/// itself is never checked, and the trusted chain goes on through the trust anchors above the first one.
struct ConscryptTrustAnchorTests {
    /// A root (with the given dates and pathLen), an intermediate under it and a leaf for bank.test under that.
    struct Hierarchy {
        let root: Certificate, intermediate: Certificate, leaf: Certificate

        init(rootNotBefore: String = "2025-01-01", rootNotAfter: String = "2028-01-01", rootPathLength: Int? = nil) throws {
            let factory = CertificateFactory(now: AFFixtures.clock)
            let start = AFFixtures.date("2026-01-01T00:00:00Z")
            let end = AFFixtures.date("2027-01-01T00:00:00Z")
            let root = try factory.makeIdentity(
                .authority(
                    label: "Root", commonName: "Conscrypt Root", pathLength: rootPathLength, notBefore: AFFixtures.date("\(rootNotBefore)T00:00:00Z"),
                    notAfter: AFFixtures.date("\(rootNotAfter)T00:00:00Z")))
            let intermediate = try factory.makeIdentity(
                .authority(label: "Intermediate", commonName: "Conscrypt Intermediate", notBefore: start, notAfter: end), signedBy: root)
            let leaf = try factory.makeIdentity(
                .serverLeaf(label: "bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: end), signedBy: intermediate)
            (self.root, self.intermediate, self.leaf) = (root.certificate, intermediate.certificate, leaf.certificate)
        }

        /// The leaf and the intermediate on the wire, judged at the fixture clock (2026-06-01) against `system`.
        func connection(system: [Certificate]) -> PresentedConnection {
            let trust = ServerTrust(
                certificates: [leaf, intermediate], deviceTrustStore: DeviceTrustStore(system: system), verifyDate: AFFixtures.clock)
            return PresentedConnection(serverTrust: trust, negotiated: AndroidWorld.tls13, host: "bank.test", domain: "bank.test")
        }
    }

    static let android = AndroidNetworkSecurityClient()
    static let okHttp = OkHttpClient()

    @Test(
        "A system root that expired, is not yet valid, or whose pathLen the chain exceeds still anchors the chain on Android",
        arguments: [
            ("expired", try Hierarchy(rootNotBefore: "2020-01-01", rootNotAfter: "2026-02-01")),
            ("not yet valid", try Hierarchy(rootNotBefore: "2026-09-01", rootNotAfter: "2030-01-01")),
            ("pathLen 0 above an intermediate", try Hierarchy(rootPathLength: 0)),
        ])
    func anchorIsNotChecked(flaw: String, world: Hierarchy) {
        let connection = world.connection(system: [world.root])
        // The same chain fails OpenSSL's own verification: only the anchor is at fault.
        let openSSL = connection.serverTrust.evaluate()
        #expect(!openSSL.isValid && openSSL.failures.allSatisfy { $0.certificate == world.root }, "\(flaw): \(openSSL.failures)")

        let android = Self.android.evaluate(connection)
        #expect(android.isTrusted, "\(flaw): \(android.steps.map(\.detail))")
        let anchors = android.steps.first { $0.check == .androidTrustAnchors }
        #expect(anchors?.outcome == .passed)
        #expect(anchors?.detail.contains("a trust anchor is not itself checked, so it does not matter that") == true, "\(anchors?.detail ?? "")")
        #expect(Self.okHttp.evaluate(connection).isTrusted, "\(flaw)")
    }

    @Test("A flaw below the anchor still refuses: an expired intermediate under a sound root")
    func belowTheAnchorIsChecked() throws {
        let world = try Hierarchy()
        let factory = CertificateFactory(now: AFFixtures.clock)
        let rootIdentity = try factory.makeIdentity(
            .authority(
                label: "Root", commonName: "Other Root", notBefore: AFFixtures.date("2025-01-01T00:00:00Z"),
                notAfter: AFFixtures.date("2028-01-01T00:00:00Z")))
        let expiredIntermediate = try factory.makeIdentity(
            .authority(
                label: "Expired Intermediate", commonName: "Expired Intermediate", notBefore: AFFixtures.date("2025-01-01T00:00:00Z"),
                notAfter: AFFixtures.date("2026-02-01T00:00:00Z")), signedBy: rootIdentity)
        let leaf = try factory.makeIdentity(
            .serverLeaf(label: "bank.test", dnsNames: ["bank.test"], notBefore: world.leaf.notBefore, notAfter: world.leaf.notAfter),
            signedBy: expiredIntermediate)
        let trust = ServerTrust(
            certificates: [leaf.certificate, expiredIntermediate.certificate], deviceTrustStore: DeviceTrustStore(system: [rootIdentity.certificate]),
            verifyDate: AFFixtures.clock)
        let connection = PresentedConnection(serverTrust: trust, negotiated: AndroidWorld.tls13, host: "bank.test", domain: "bank.test")
        #expect(!Self.android.evaluate(connection).isTrusted)
        #expect(!Self.okHttp.evaluate(connection).isTrusted)
    }

    @Test("A root pinned above a trusted intermediate matches: the cleaned chain goes on to the self-signed anchor")
    func pinnedRootAboveTrustedIntermediate() throws {
        let world = try Hierarchy()
        // Both the intermediate and the root are trust anchors; the server sends the leaf and the intermediate.
        let connection = world.connection(system: [world.intermediate, world.root])
        let okHttp = OkHttpClient(certificatePinner: CertificatePinner(pins: [CertificatePinner.Pin(pattern: "bank.test", certificate: world.root)]))
        let evaluation = okHttp.evaluate(connection)
        #expect(evaluation.isTrusted, "\(evaluation.steps.map(\.detail))")
        #expect(evaluation.path == [world.leaf, world.intermediate, world.root])
        let trustManager = evaluation.steps.first { $0.check == .okHttpTrustManager }?.detail ?? ""
        #expect(
            trustManager.hasSuffix(
                "ending at 'Intermediate' from the system CA store; the trusted chain goes on through the trust anchor that issued it: 'Root'"),
            "\(trustManager)")

        let config = NetworkSecurityConfig(domainConfigs: [
            .init(domains: [.init("bank.test")], pinSet: .init(pins: [.init(certificate: world.root)]))
        ])
        let android = AndroidNetworkSecurityClient(config: config).evaluate(connection)
        #expect(android.isTrusted, "\(android.steps.map(\.detail))")
    }

    @Test("An intermediate trusted without its root ends the cleaned chain, and the trace says it is no root")
    func trustedIntermediateAlone() throws {
        let world = try Hierarchy()
        let pin = CertificatePinner.Pin(pattern: "bank.test", certificate: world.intermediate)
        let evaluation = OkHttpClient(certificatePinner: CertificatePinner(pins: [pin])).evaluate(world.connection(system: [world.intermediate]))
        #expect(evaluation.isTrusted)
        #expect(evaluation.path == [world.leaf, world.intermediate])
        let cleaning = evaluation.steps.first { $0.check == .okHttpChainCleaning }?.detail ?? ""
        #expect(cleaning.contains("to the trust anchor 'Intermediate', which no trust anchor issued: 'bank.test' -> 'Intermediate'"), "\(cleaning)")
    }
}
