import Foundation
import PKI
import Policies
import Testing

/// Certificate pinning of the real leaf with allowInvalidCertificates YES, as an iPhone decides it.
struct PinnedLeafPolicyTests {
    let world = BankWorld.shared

    @Test func aPinnedLeafIsTrustedEvenWhenTheIntermediateSentAboveItHasExpired() throws {
        let start = AFFixtures.date("2025-01-01T00:00:00Z")
        let lapsed = try world.factory.makeIdentity(
            .authority(
                label: "Lapsed Intermediate", commonName: "Lapsed Intermediate", notBefore: start, notAfter: BankWorld.clock.addingTimeInterval(-86_400)),
            signedBy: world.root)
        let leaf = try world.factory.makeIdentity(
            .serverLeaf(label: "bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: BankWorld.clock.addingTimeInterval(86_400)),
            signedBy: lapsed)
        let policy = SecurityPolicy(SSLPinningMode: .certificate, allowInvalidCertificates: true, pinnedCertificates: [leaf.certificate])

        let evaluation = policy.evaluate(serverTrust: world.trust([leaf.certificate, lapsed.certificate]), forDomain: "bank.test")

        #expect(evaluation.isTrusted, "\(evaluation.steps)")
        #expect(evaluation.path == [leaf.certificate])
    }
}
