import PKI
import Policies
import Testing

/// What each release's trace tells a learner, and what the releases' own defaults are.
struct AFNetworkingVersionTraceTests {
    let world = AFNetworkingVersionTests.World.shared

    func evaluate(_ policy: SecurityPolicy, _ chain: AFNetworkingVersionTests.Chain, host: String = "bank.test", domain: String? = "bank.test")
        -> PolicyEvaluation
    {
        policy.evaluate(serverTrust: world.trust(chain, host: host), forDomain: domain)
    }

    @Test("each release's +defaultPolicy is mode none, refuses invalid certificates and has that release's validatesDomainName")
    func defaultPolicies() {
        let validatesDomainName = AFNetworkingVersion.allCases.filter { $0.defaultPolicy.validatesDomainName }
        #expect(validatesDomainName == [.v4, .v3_1, .v3_0, .v2_6, .v2_5_3])
        for version in AFNetworkingVersion.allCases {
            let policy = version.defaultPolicy
            #expect(policy.version == version)
            #expect(policy.SSLPinningMode == .none && !policy.allowInvalidCertificates && policy.pinnedCertificates.isEmpty)
        }
    }

    @Test("validatesCertificateChain exists from 2.1.0 to 2.5.3, validatesDomainName everywhere but 2.0")
    func propertiesByRelease() {
        #expect(AFNetworkingVersion.allCases.filter(\.hasValidatesCertificateChain) == [.v2_5_3, .v2_5_2, .v2_5_1, .v2_5_0, .v2_2, .v2_1])
        #expect(AFNetworkingVersion.allCases.filter { !$0.hasValidatesDomainName } == [.v2_0])
        #expect(AFNetworkingVersion.v2_2.defaultValidatesDomainName(for: .certificate))
        #expect(!AFNetworkingVersion.v2_5_2.defaultValidatesDomainName(for: .none))
    }

    @Test("display names and summaries are distinct, and 2.5.1 and 2.2.0 are named by their tags")
    func namesAndSummaries() {
        let versions = AFNetworkingVersion.allCases
        #expect(Set(versions.map(\.displayName)).count == versions.count)
        #expect(Set(versions.map(\.summary)).count == versions.count)
        #expect(AFNetworkingVersion.v2_5_1.displayName == "AFNetworking 2.5.1")
        #expect(AFNetworkingVersion.v2_2.displayName == "AFNetworking 2.2.0")
    }

    @Test("AFNetworking 2.5.1's default policy says it accepted a self-signed chain without evaluating anything")
    func twoFiveOneSaysWhy() {
        let evaluation = evaluate(AFNetworkingVersion.v2_5_1.defaultPolicy, .selfSigned)
        #expect(evaluation.isTrusted && evaluation.path.isEmpty)
        #expect(evaluation.steps.map(\.check) == [.policySelection, .modeNoneWithoutEvaluation])
        #expect(evaluation.decidingStep?.detail.hasPrefix("AFNetworking 2.5.1: the pinning mode is none, so the policy returns YES without evaluating") == true)
    }

    @Test("AFNetworking 2.5.2's default policy accepts a valid chain for another host because it checks no host name")
    func twoFiveTwoHostnameBypass() {
        let evaluation = evaluate(AFNetworkingVersion.v2_5_2.defaultPolicy, .valid, host: "other.test", domain: "other.test")
        #expect(evaluation.isTrusted)
        #expect(evaluation.steps.first?.detail == "validatesDomainName is NO: BasicX509 policy, the host name is never checked")
        let fixed = evaluate(AFNetworkingVersion.v2_5_3.defaultPolicy, .valid, host: "other.test", domain: "other.test")
        #expect(fixed.rejection?.code == "hostnameMismatch")
    }

    @Test("releases before 2.6 say they have no contradictory-settings rule only when 4.x's rule would have refused")
    func missingDomainGuard() {
        let contradictory = SecurityPolicy(version: .v2_5_3, allowInvalidCertificates: true)
        #expect(evaluate(contradictory, .selfSigned).steps.first { $0.check == .domainGuard }?.outcome == .skipped)
        #expect(!evaluate(SecurityPolicy(version: .v2_6, allowInvalidCertificates: true), .selfSigned).isTrusted)
        #expect(!evaluate(SecurityPolicy(version: .v2_5_3), .valid).steps.contains { $0.check == .domainGuard })
    }

    @Test("AFNetworking 2.0 says once that it ignores the domain, and judges the same with or without one")
    func twoZeroIgnoresTheDomain() {
        let policy = SecurityPolicy(version: .v2_0, SSLPinningMode: .certificate, pinnedCertificates: [world.bank.leaf.certificate])
        let withDomain = evaluate(policy, .expired, domain: "elsewhere.test")
        let withoutDomain = evaluate(policy, .expired, domain: nil)
        #expect(withDomain.steps.filter { $0.detail.contains("'elsewhere.test' is not used") }.count == 1)
        #expect(withDomain.steps.map(\.check) == withoutDomain.steps.map(\.check))
        #expect(withDomain.rejection == withoutDomain.rejection)
    }

    @Test("AFNetworking 2.6 reads the chain before anchoring, so a pinned root the server did not send is not in it")
    func twoSixReadsTheChainBeforeAnchoring() {
        let policy = SecurityPolicy(
            version: .v2_6, SSLPinningMode: .certificate, allowInvalidCertificates: true, pinnedCertificates: [world.privateRoot])
        let evaluation = evaluate(policy, .privateRootNotSent)
        #expect(evaluation.path == world.privateChain)
        #expect(evaluation.decidingStep?.detail.contains("(read before the pinned anchors were set)") == true)
    }

    @Test("key matches are counted per pinned certificate, so two pinned certificates with the leaf's key count twice in 2.5.x")
    func keyMatchesCountPairs() throws {
        let reissued = try world.bank.factory.issue(
            .serverLeaf(
                label: "reissued bank.test", dnsNames: ["bank.test"], notBefore: AFFixtures.date("2026-01-01T00:00:00Z"),
                notAfter: AFFixtures.date("2027-01-01T00:00:00Z")),
            key: world.bank.leaf.privateKey, signedBy: world.bank.intermediate)
        let twoPins = SecurityPolicy(
            version: .v2_5_2, SSLPinningMode: .publicKey, pinnedCertificates: [world.bank.leaf.certificate, reissued, world.bank.root.certificate])
        // Path of 3: leaf (2 pairs) + root (1 pair) = 3, though the intermediate's key is not pinned.
        let evaluation = evaluate(twoPins, .valid)
        #expect(evaluation.isTrusted)
        #expect(evaluation.decidingStep?.check == .everyPublicKeyPinned)
    }
}
