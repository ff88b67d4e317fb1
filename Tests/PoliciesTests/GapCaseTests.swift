import PKI
import Policies
import Testing

/// The gaps G1–G5 of the reference (§3): cases AF's own suite never runs, with verdicts derived from §1.
struct GapCaseTests {
    let world = BankWorld.shared

    @Test func g1PublicKeyPinningWithInvalidCertificatesAllowedAcceptsAnExpiredLeafForAnotherHostThatCarriesThePinnedKey() throws {
        let stale = try world.factory.issue(
            .serverLeaf(
                label: "old.example", dnsNames: ["old.example"], notBefore: AFFixtures.date("2024-01-01T00:00:00Z"),
                notAfter: AFFixtures.date("2025-01-01T00:00:00Z")),
            key: world.leaf.privateKey, signedBy: world.intermediate)
        let policy = SecurityPolicy(SSLPinningMode: .publicKey, allowInvalidCertificates: true, pinnedCertificates: [world.leaf.certificate])
        let trust = world.trust([stale, world.intermediate.certificate])

        #expect(Set(trust.evaluate().failures.map(\.kind.code)) == ["expired"])
        let evaluation = policy.evaluate(serverTrust: trust, forDomain: "bank.test")
        #expect(evaluation.isTrusted)
        #expect(evaluation.decidingStep?.check == .pinnedPublicKeyMatch)
    }

    @Test func g2CertificatePinningChecksDatesEvenWhenInvalidCertificatesAreAllowed() throws {
        let expired = try world.factory.makeIdentity(
            CertificateSpec(
                label: "expired self-signed", subject: DistinguishedName(commonName: "bank.test"), dnsNames: ["bank.test"],
                notBefore: AFFixtures.date("2024-01-01T00:00:00Z"), notAfter: AFFixtures.date("2025-01-01T00:00:00Z"),
                keyUsage: [.digitalSignature], extendedKeyUsage: [.serverAuth])
        ).certificate
        let policy = SecurityPolicy(SSLPinningMode: .certificate, allowInvalidCertificates: true, pinnedCertificates: [expired])
        let evaluation = policy.evaluate(serverTrust: world.trust([expired]), forDomain: "bank.test")

        #expect(!evaluation.isTrusted)
        #expect(evaluation.decidingStep?.check == .pinnedAnchors)
        #expect(evaluation.rejection?.code == "expired")
    }

    @Test func g3CertificatePinningOfAPrivateRootNeedsInvalidCertificatesAllowed() throws {
        let privateRoot = try world.factory.makeIdentity(
            .authority(
                label: "Private Root", commonName: "Private Root", notBefore: world.root.certificate.notBefore, notAfter: world.root.certificate.notAfter))
        let leaf = try world.factory.makeIdentity(
            .serverLeaf(
                label: "intranet.test", dnsNames: ["intranet.test"], notBefore: world.leaf.certificate.notBefore, notAfter: world.leaf.certificate.notAfter),
            signedBy: privateRoot)
        var policy = SecurityPolicy(SSLPinningMode: .certificate, pinnedCertificates: [privateRoot.certificate])
        let trust = world.trust([leaf.certificate, privateRoot.certificate])

        let refused = policy.evaluate(serverTrust: trust, forDomain: "intranet.test")
        #expect(!refused.isTrusted)
        #expect(refused.decidingStep?.check == .chainTrust)

        policy.allowInvalidCertificates = true
        #expect(policy.evaluate(serverTrust: trust, forDomain: "intranet.test").isTrusted)
    }

    @Test(arguments: [(SSLPinningMode.certificate, TraceStep.Check.pinnedAnchors), (.publicKey, .pinnedPublicKeyMatch)])
    func g4PinningTheRealLeafStopsAnAttackerWhoseCAtheDeviceTrusts(mode: SSLPinningMode, deciding: TraceStep.Check) {
        let policy = SecurityPolicy(SSLPinningMode: mode, pinnedCertificates: [world.leaf.certificate])
        let evaluation = policy.evaluate(serverTrust: world.trust(world.forgedChain, attackerInstalled: true), forDomain: "bank.test")

        #expect(!evaluation.isTrusted)
        #expect(evaluation.steps.first { $0.check == .chainTrust }?.outcome == .passed)
        #expect(evaluation.decidingStep?.check == deciding)
    }

    @Test func g5WithoutPinningAnAttackerWhoseCAtheDeviceTrustsIsAccepted() {
        let evaluation = SecurityPolicy.defaultPolicy.evaluate(
            serverTrust: world.trust(world.forgedChain, attackerInstalled: true), forDomain: "bank.test")

        #expect(evaluation.isTrusted)
        #expect(evaluation.path == [world.forged.certificate, world.attackerCA.certificate])
    }
}
