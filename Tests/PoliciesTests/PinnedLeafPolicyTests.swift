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

    /// The article recipe for a self-signed server: a ten-year certificate, pinned, allowInvalidCertificates YES.
    func tenYearSelfSignedPinned(platform: Platform, validatesDomainName: Bool = true) throws -> PolicyEvaluation {
        let start = BankWorld.clock.addingTimeInterval(-86_400)
        let selfSigned = try world.factory.makeIdentity(
            .serverLeaf(label: "bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: start.addingTimeInterval(3_650 * 86_400)))
        let policy = SecurityPolicy(
            SSLPinningMode: .certificate, allowInvalidCertificates: true, validatesDomainName: validatesDomainName,
            pinnedCertificates: [selfSigned.certificate])
        var trust = world.trust([selfSigned.certificate])
        trust.platform = platform
        return policy.evaluate(serverTrust: trust, forDomain: "bank.test")
    }

    @Test func aTenYearSelfSignedPinnedLeafIsRejectedOnIOS13EvenWithAllowInvalidCertificates() throws {
        let evaluation = try tenYearSelfSignedPinned(platform: .iOS13)

        #expect(!evaluation.isTrusted)
        #expect(evaluation.decidingStep?.check == .pinnedAnchors)
        #expect(evaluation.rejection?.code == "validityPeriodTooLong")
        #expect(evaluation.decidingStep?.detail.contains("the chain is evaluated, even though allowInvalidCertificates is YES") == true)
    }

    @Test func theSameLeafIsTrustedOnIOS12AndWithoutTheDomainCheckWhoseBasicPolicyHasNoMaximum() throws {
        #expect(try tenYearSelfSignedPinned(platform: .iOS12).isTrusted)
        #expect(try tenYearSelfSignedPinned(platform: .iOS13, validatesDomainName: false).isTrusted)
    }
}
