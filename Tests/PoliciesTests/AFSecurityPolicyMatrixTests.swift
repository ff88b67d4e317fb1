import PKI
import Policies
import Testing

/// AFNetworking 4.0.1's `AFSecurityPolicyTests`, re-created on generated PKI at a fixed clock.
///
/// Numbering follows the reference (`afsecuritypolicy.md` §3). Tests 10 and 22 read an app bundle and
/// 45–46 check NSCopying/NSSecureCoding; a simulation has no bundle and `SecurityPolicy` is a value type,
/// so those four have no counterpart. Our SAN-only host rule changes none of the 46 verdicts: AF's
/// fixtures only ever match host names through the SAN. Where it would differ (a CN-only certificate)
/// is shown in `AdversarialChainTests`.
struct AFSecurityPolicyMatrixTests {
    enum Chain: String, Sendable {
        case httpbin = "HB"
        case adn = "ADN"
        case noDomains = "[SSn]"
        case foobar = "[SSc]"
        case altName = "[SSa]"
    }
    enum Pin: String, Sendable {
        case leaf = "L"
        case serverCA = "I1"
        case rootCA1 = "I2"
        case servicesRoot = "I3"
        case foobar = "SSc"
        case noDomains = "SSn"
        case altName = "SSa"
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let number: Int
        let mode: SSLPinningMode
        let allowInvalid: Bool
        let validatesDomainName: Bool
        let pinned: [Pin]
        let chain: Chain
        let domain: String?
        let trusted: Bool
        let deciding: TraceStep.Check
        let reason: String?

        init(
            _ number: Int, _ mode: SSLPinningMode, A allowInvalid: Bool = false, V validatesDomainName: Bool = true,
            _ pinned: [Pin], _ chain: Chain, _ domain: String?, _ trusted: Bool, _ deciding: TraceStep.Check, _ reason: String? = nil
        ) {
            (self.number, self.mode, self.allowInvalid, self.validatesDomainName) = (number, mode, allowInvalid, validatesDomainName)
            (self.pinned, self.chain, self.domain, self.trusted, self.deciding, self.reason) = (pinned, chain, domain, trusted, deciding, reason)
        }

        var testDescription: String {
            "#\(number) \(mode) A=\(allowInvalid ? "Y" : "N") V=\(validatesDomainName ? "Y" : "N") "
                + "{\(pinned.map(\.rawValue).joined(separator: ","))} \(chain.rawValue) \(domain ?? "nil") → \(trusted ? "YES" : "NO")"
        }
    }

    static let cases: [Case] = [
        Case(5, .none, [], .httpbin, nil, true, .chainTrust),
        Case(6, .none, [], .httpbin, "httpbin.org", true, .chainTrust),
        Case(7, .none, [], .noDomains, nil, false, .chainTrust, "untrustedRoot"),
        Case(8, .none, [], .httpbin, "apple.com", false, .chainTrust, "hostnameMismatch"),
        Case(11, .publicKey, [.leaf], .httpbin, nil, true, .pinnedPublicKeyMatch),
        Case(12, .publicKey, [.serverCA], .httpbin, nil, true, .pinnedPublicKeyMatch),
        Case(13, .publicKey, [.rootCA1], .httpbin, nil, true, .pinnedPublicKeyMatch),
        Case(14, .publicKey, [.leaf, .serverCA, .rootCA1, .servicesRoot], .httpbin, nil, true, .pinnedPublicKeyMatch),
        Case(15, .publicKey, [.leaf, .foobar], .httpbin, nil, true, .pinnedPublicKeyMatch),
        Case(16, .publicKey, [.leaf], .httpbin, "httpbin.org", true, .pinnedPublicKeyMatch),
        Case(17, .publicKey, [], .httpbin, nil, false, .pinnedPublicKeyMatch, "pinnedPublicKeyNotInPath"),
        Case(18, .publicKey, [.leaf], .adn, nil, false, .chainTrust, "expired"),
        Case(19, .publicKey, [.leaf], .httpbin, "invaliddomainname.com", false, .chainTrust, "hostnameMismatch"),
        Case(20, .publicKey, [.leaf, .foobar], .adn, nil, false, .chainTrust, "expired"),
        Case(23, .certificate, [.leaf], .httpbin, nil, true, .pinnedCertificateMatch),
        Case(24, .certificate, [.serverCA], .httpbin, nil, true, .pinnedCertificateMatch),
        Case(25, .certificate, [.rootCA1], .httpbin, nil, true, .pinnedCertificateMatch),
        Case(26, .certificate, [.leaf, .serverCA, .rootCA1, .servicesRoot], .httpbin, nil, true, .pinnedCertificateMatch),
        Case(27, .certificate, [.leaf, .foobar], .httpbin, nil, true, .pinnedCertificateMatch),
        Case(28, .certificate, [.leaf], .httpbin, "httpbin.org", true, .pinnedCertificateMatch),
        Case(29, .certificate, [], .httpbin, nil, false, .pinnedAnchors, "missingIssuer"),
        Case(30, .certificate, [.leaf], .adn, nil, false, .chainTrust, "expired"),
        Case(31, .certificate, [.leaf], .httpbin, "invaliddomainname.com", false, .chainTrust, "hostnameMismatch"),
        Case(32, .certificate, [.leaf, .foobar], .adn, nil, false, .chainTrust, "expired"),
        Case(33, .none, V: false, [], .httpbin, "invalid.org", true, .chainTrust),
        Case(34, .publicKey, A: true, [.foobar], .foobar, "foobar.com", true, .pinnedPublicKeyMatch),
        Case(35, .publicKey, A: true, [.altName], .altName, "foobar.com", true, .pinnedPublicKeyMatch),
        Case(36, .none, [], .httpbin, "invalid.org", false, .chainTrust, "hostnameMismatch"),
        Case(37, .certificate, A: true, [.noDomains], .noDomains, "foobar.com", false, .pinnedAnchors, "hostnameMismatch"),
        Case(38, .none, A: true, [], .altName, nil, true, .allowInvalidOverride),
        Case(39, .publicKey, A: true, [.altName], .altName, "foobar.com", true, .pinnedPublicKeyMatch),
        // 40 and 43 use policyWithPinningMode:None, which pins the bundle's certificates anyway.
        Case(40, .none, A: true, V: false, [.leaf, .foobar, .altName], .altName, "foobar.com", true, .allowInvalidOverride),
        Case(41, .none, [], .altName, nil, false, .chainTrust, "untrustedRoot"),
        Case(42, .publicKey, A: true, [], .altName, "foobar.com", false, .domainGuard, "contradictorySettings"),
        Case(43, .none, A: true, [.altName], .altName, "foobar.com", false, .domainGuard, "contradictorySettings"),
        Case(44, .none, A: true, [], .altName, "foobar.com", false, .domainGuard, "contradictorySettings"),
    ]

    @Test(arguments: cases)
    func evaluationMatchesAFNetworking(_ testCase: Case) {
        let fixtures = AFFixtures.shared
        let policy = SecurityPolicy(
            SSLPinningMode: testCase.mode, allowInvalidCertificates: testCase.allowInvalid,
            validatesDomainName: testCase.validatesDomainName, pinnedCertificates: Set(testCase.pinned.map(fixtures.certificate)))
        let evaluation = policy.evaluate(serverTrust: fixtures.trust(fixtures.chain(testCase.chain)), forDomain: testCase.domain)

        #expect(evaluation.isTrusted == testCase.trusted, "\(evaluation.steps.map(\.description))")
        #expect(evaluation.decidingStep?.check == testCase.deciding)
        #expect(evaluation.decidingStep?.outcome == (testCase.trusted ? .passed : .failed))
        #expect(evaluation.rejection?.code == testCase.reason)
    }

    @Test func defaultPolicyPinsNothingRefusesInvalidCertificatesAndValidatesTheDomain() {  // 1–4
        let policy = SecurityPolicy.defaultPolicy
        #expect(policy.SSLPinningMode == .none)
        #expect(policy.allowInvalidCertificates == false)
        #expect(policy.validatesDomainName == true)
        #expect(policy.pinnedCertificates.isEmpty)
    }

    @Test(arguments: [SSLPinningMode.publicKey, .certificate])
    func policyWithPinningModeKeepsTheGivenCertificatesOnce(_ mode: SSLPinningMode) {  // 9, 21 (and the set of 10, 22)
        let fixtures = AFFixtures.shared
        let copy = try! Certificate.parseAll(fixtures.leaf.der, source: "copy")[0]
        let policy = SecurityPolicy.policy(withPinningMode: mode, pinnedCertificates: [fixtures.leaf, copy, fixtures.serverCA])
        #expect(policy.SSLPinningMode == mode)
        #expect(policy.pinnedCertificates.count == 2)
        #expect(policy.pinnedPublicKeys == [fixtures.leaf.publicKeyInfo, fixtures.serverCA.publicKeyInfo])
    }
}

extension AFFixtures {
    func chain(_ chain: AFSecurityPolicyMatrixTests.Chain) -> [Certificate] {
        switch chain {
        case .httpbin: httpbinChain
        case .adn: adnChain
        case .noDomains: [noDomains]
        case .foobar: [foobarCommonNameOnly]
        case .altName: [altName]
        }
    }

    func certificate(_ pin: AFSecurityPolicyMatrixTests.Pin) -> Certificate {
        switch pin {
        case .leaf: leaf
        case .serverCA: serverCA
        case .rootCA1: rootCA1
        case .servicesRoot: servicesRoot
        case .foobar: foobarCommonNameOnly
        case .noDomains: noDomains
        case .altName: altName
        }
    }
}
