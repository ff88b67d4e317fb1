import Foundation
import PKI
import Policies
import Testing

/// TrustKit's configuration rules and `TSKPinningValidator`'s decision, on real chains of the bank world.
struct TrustKitTests {
    static let world = BankWorld.shared
    /// A pin no certificate of the world has: TrustKit's required backup pin.
    static let backupPin = Data(repeating: 7, count: 32).base64EncodedString()
    static let leafPin = world.leaf.certificate.publicKeySHA256Base64
    static let intermediatePin = world.intermediate.certificate.publicKeySHA256Base64

    /// The chains the cases present.
    enum Chain: String, CustomStringConvertible {
        case real, forged, misIssued, appendedPinnedLeaf, expired
        var description: String { rawValue }

        func certificates(_ world: BankWorld) throws -> [Certificate] {
            switch self {
            case .real: return world.realChain
            case .forged: return world.forgedChain
            // A CA the app pinned issues a certificate for the bank's host to someone else.
            case .misIssued:
                return [
                    try world.factory.forge(impersonating: world.leaf.certificate, signedBy: world.intermediate).certificate, world.intermediate.certificate,
                ]
            // CVE-2016-2402's attack: the public pinned certificate sent after the forgery.
            case .appendedPinnedLeaf: return world.forgedChain + [world.leaf.certificate]
            case .expired:
                let spec = CertificateSpec.serverLeaf(
                    label: "expired bank.test", dnsNames: ["bank.test"], notBefore: AFFixtures.date("2025-01-01T00:00:00Z"),
                    notAfter: AFFixtures.date("2026-01-01T00:00:00Z"))
                let leaf = try world.factory.makeIdentity(spec, signedBy: world.intermediate).certificate
                return [leaf, world.intermediate.certificate]
            }
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let domains: [String: TrustKitDomainPolicy]
        let chain: Chain
        var attackerInstalled = false
        var host = "bank.test"
        let trusted: Bool
        let deciding: TraceStep.Check
        var rejection: String? = nil
        var urlError: NSURLError? = nil
        var testDescription: String { name }
    }

    static func pinned(_ pins: [String], includeSubdomains: Bool = false, enforce: Bool = true, expires: String? = nil) -> TrustKitDomainPolicy {
        TrustKitDomainPolicy(publicKeyHashes: pins, includeSubdomains: includeSubdomains, enforcePinning: enforce, expirationDate: expires)
    }

    static let leafPinned = ["bank.test": pinned([leafPin, backupPin])]
    static let reportOnly = ["bank.test": pinned([leafPin], enforce: false)]

    static let cases: [Case] = [
        Case(name: "the real chain with the leaf's key pinned is allowed", domains: leafPinned, chain: .real, trusted: true, deciding: .trustKitPinMatch),
        Case(
            name: "a forgery from an untrusted CA fails the forced SSL evaluation", domains: leafPinned, chain: .forged, trusted: false,
            deciding: .trustKitChainValidation, rejection: "untrustedRoot", urlError: .cancelled),
        Case(
            name: "a forgery from a user-installed CA passes the evaluation and has no pinned key", domains: leafPinned, chain: .forged,
            attackerInstalled: true, trusted: false, deciding: .trustKitPinMatch, rejection: "trustKitNoMatchingPin", urlError: .cancelled),
        Case(
            name: "report-only lets a forgery from a user-installed CA through and reports it", domains: reportOnly, chain: .forged,
            attackerInstalled: true, trusted: true, deciding: .trustKitReportOnly),
        Case(
            name: "report-only still blocks a chain the system does not trust", domains: reportOnly, chain: .forged, trusted: false,
            deciding: .trustKitChainValidation, rejection: "untrustedRoot", urlError: .cancelled),
        Case(
            name: "pinning the intermediate lets a certificate it mis-issued through", domains: ["bank.test": pinned([intermediatePin, backupPin])],
            chain: .misIssued, trusted: true, deciding: .trustKitPinMatch),
        Case(
            name: "pinning the leaf refuses a certificate the CA mis-issued", domains: leafPinned, chain: .misIssued, trusted: false,
            deciding: .trustKitPinMatch, rejection: "trustKitNoMatchingPin", urlError: .cancelled),
        Case(
            name: "the appended pinned certificate is not in the evaluated path", domains: leafPinned, chain: .appendedPinnedLeaf,
            attackerInstalled: true, trusted: false, deciding: .trustKitPinMatch, rejection: "trustKitNoMatchingPin", urlError: .cancelled),
        Case(
            name: "an expired chain is blocked before the pins are looked at", domains: leafPinned, chain: .expired, trusted: false,
            deciding: .trustKitChainValidation, rejection: "expired", urlError: .cancelled),
        Case(
            name: "a pinned leaf presented for another pinned host fails the host check", domains: ["other.test": pinned([leafPin, backupPin])],
            chain: .real, host: "other.test", trusted: false, deciding: .trustKitChainValidation, rejection: "hostnameMismatch", urlError: .cancelled),
        Case(
            name: "a host with no policy gets the system's default handling", domains: ["other.test": pinned([leafPin, backupPin])], chain: .forged,
            attackerInstalled: true, trusted: true, deciding: .trustKitDefaultHandling),
        Case(
            name: "default handling refuses what the system does not trust", domains: ["other.test": pinned([leafPin, backupPin])], chain: .forged,
            trusted: false, deciding: .trustKitDefaultHandling, rejection: "untrustedRoot", urlError: .serverCertificateUntrusted),
        Case(
            name: "an expired policy falls back to the system, which trusts a user-installed CA",
            domains: ["bank.test": pinned([leafPin, backupPin], expires: "2026-05-31")], chain: .forged, attackerInstalled: true, trusted: true,
            deciding: .trustKitDefaultHandling),
        Case(
            name: "a policy that has not expired is enforced", domains: ["bank.test": pinned([leafPin, backupPin], expires: "2026-06-02")],
            chain: .forged, attackerInstalled: true, trusted: false, deciding: .trustKitPinMatch, rejection: "trustKitNoMatchingPin",
            urlError: .cancelled),
        Case(
            name: "an expiration date TrustKit cannot read never expires",
            domains: ["bank.test": pinned([leafPin, backupPin], expires: "31/05/2026")], chain: .forged, attackerInstalled: true, trusted: false,
            deciding: .trustKitPinMatch, rejection: "trustKitNoMatchingPin", urlError: .cancelled),
        Case(
            name: "includeSubdomains covers www.bank.test", domains: ["bank.test": pinned([leafPin, backupPin], includeSubdomains: true)],
            chain: .forged, attackerInstalled: true, host: "www.bank.test", trusted: false, deciding: .trustKitPinMatch,
            rejection: "trustKitNoMatchingPin", urlError: .cancelled),
        Case(
            name: "without includeSubdomains www.bank.test is not pinned", domains: leafPinned, chain: .forged, attackerInstalled: true,
            host: "www.bank.test", trusted: true, deciding: .trustKitDefaultHandling),
        Case(
            name: "a subdomain excluded from its parent's policy is not pinned",
            domains: ["bank.test": pinned([leafPin, backupPin], includeSubdomains: true), "www.bank.test": .excludedFromParentPolicy],
            chain: .forged, attackerInstalled: true, host: "www.bank.test", trusted: true, deciding: .trustKitDefaultHandling),
    ]

    @Test("TrustKit decides as TSKPinningValidator does", arguments: cases)
    func decides(_ testCase: Case) throws {
        let configuration = try TrustKitConfiguration(pinnedDomains: testCase.domains)
        let trust = Self.world.trust(try testCase.chain.certificates(Self.world), attackerInstalled: testCase.attackerInstalled)
        let evaluation = TrustKitClient(configuration: configuration).evaluate(
            PresentedConnection(serverTrust: trust, negotiated: AppTransportSecurityTests.tls13, host: testCase.host, domain: testCase.host))
        #expect(evaluation.isTrusted == testCase.trusted, "\(evaluation.steps)")
        #expect(evaluation.decidingStep?.check == testCase.deciding, "\(evaluation.steps)")
        #expect(evaluation.rejection?.code == testCase.rejection)
        #expect(evaluation.urlError == testCase.urlError)
        #expect(evaluation.steps.last?.check == .challengeDisposition)
    }

    @Test("Report-only says what it let through, step by step")
    func reportOnlyTrace() throws {
        let configuration = try TrustKitConfiguration(pinnedDomains: Self.reportOnly)
        let evaluation = TrustKitClient(configuration: configuration).evaluate(
            PresentedConnection(
                serverTrust: Self.world.trust(Self.world.forgedChain, attackerInstalled: true), negotiated: AppTransportSecurityTests.tls13,
                host: "bank.test", domain: nil))
        #expect(
            evaluation.steps == [
                TraceStep(.trustKitPolicyLookup, .note, "'bank.test' has its own TSKPinnedDomains entry: 1 pin, TSKIncludeSubdomains NO, TSKEnforcePinning NO"),
                TraceStep(.trustKitPolicyExpiration, .skipped, "the policy has no TSKExpirationDate, so it never expires"),
                TraceStep(
                    .trustKitChainValidation, .passed,
                    "TrustKit sets SecPolicyCreateSSL(YES, 'bank.test') and the device trust store trusts the chain (SecTrustEvaluate: kSecTrustResultProceed): path "
                        + "'forged bank.test' -> "
                        + "'Attacker CA', ending at 'Attacker CA', a root the user installed and fully trusted"),
                TraceStep(
                    .trustKitPinMatch, .note,
                    "none of the 2 keys in the path 'forged bank.test' -> 'Attacker CA' hashes to a pin of 'bank.test' (TSKTrustEvaluationFailedNoMatchingPin)"),
                TraceStep(
                    .trustKitReportOnly, .passed,
                    "TSKEnforcePinning is NO, so the policy is report-only: TrustKit allows the connection and only sends a pin failure report"),
                TraceStep(.challengeDisposition, .note, "TrustKit's handleChallenge answers UseCredential with credentialForTrust:"),
            ])
    }

    @Test("The path is walked from the root, so a pinned root is found before a leaf key TrustKit cannot hash")
    func unhashableKey() throws {
        let spec = CertificateSpec.serverLeaf(
            label: "rsa1024 bank.test", dnsNames: ["bank.test"], notBefore: AFFixtures.date("2026-01-01T00:00:00Z"),
            notAfter: AFFixtures.date("2027-01-01T00:00:00Z"))
        let leaf = try Self.world.factory.makeIdentity(spec, keyType: .rsa1024, signedBy: Self.world.intermediate).certificate
        var trust = Self.world.trust([leaf, Self.world.intermediate.certificate])
        // iOS 12 still accepts an RSA-1024 leaf, so the chain reaches the pins.
        trust.platform = .iOS12
        let connection = PresentedConnection(serverTrust: trust, negotiated: AppTransportSecurityTests.tls13, host: "bank.test", domain: nil)
        let rootPin = Self.world.root.certificate.publicKeySHA256Base64

        let refused = TrustKitClient(configuration: try TrustKitConfiguration(pinnedDomains: Self.leafPinned)).evaluate(connection)
        #expect(refused.rejection == .trustKitCouldNotGenerateSPKIHash)
        #expect(refused.decidingStep?.detail.contains("cannot hash the key of 'rsa1024 bank.test' (RSA 1024") == true)

        let allowed = TrustKitClient(configuration: try TrustKitConfiguration(pinnedDomains: ["bank.test": Self.pinned([rootPin, Self.backupPin])]))
            .evaluate(connection)
        #expect(allowed.isTrusted)
        #expect(allowed.decidingStep?.detail.contains("the key of 'Bank Root' hashes to \(rootPin)") == true)
    }

    // MARK: - Configuration rules

    struct Invalid: CustomTestStringConvertible, Sendable {
        let name: String
        let domains: [String: TrustKitDomainPolicy]
        let reason: String
        var testDescription: String { name }
    }

    static let invalid: [Invalid] = [
        Invalid(
            name: "no pinned domains", domains: [:],
            reason: "TrustKit was initialized with no pinned domains. The configuration format has changed: ensure your domain pinning policies "
                + "are under the TSKPinnedDomains key within TSKConfiguration."),
        Invalid(
            name: "one pin while enforcing", domains: ["bank.test": pinned([leafPin])],
            reason: "TrustKit was initialized with less than 2 pins (ie. no backup pins) for domain bank.test. This might brick your App; "
                + "please review the Getting Started guide in ./docs/getting-started.md"),
        Invalid(
            name: "the same pin twice counts once", domains: ["bank.test": pinned([leafPin, leafPin])],
            reason: "TrustKit was initialized with less than 2 pins (ie. no backup pins) for domain bank.test. This might brick your App; "
                + "please review the Getting Started guide in ./docs/getting-started.md"),
        Invalid(
            name: "no pin in report-only", domains: ["bank.test": pinned([], enforce: false)],
            reason: "TrustKit was initialized with less than 1 pins (ie. no backup pins) for domain bank.test. This might brick your App; "
                + "please review the Getting Started guide in ./docs/getting-started.md"),
        Invalid(
            name: "a pin of 20 bytes (a SHA-1)", domains: ["bank.test": pinned([Data(repeating: 1, count: 20).base64EncodedString(), backupPin])],
            reason: "TrustKit was initialized with an invalid Pin AQEBAQEBAQEBAQEBAQEBAQEBAQE= for domain bank.test"),
        Invalid(
            name: "a pin that is not base64", domains: ["bank.test": pinned(["sha256/\(leafPin)", backupPin])],
            reason: "TrustKit was initialized with an invalid Pin sha256/\(leafPin) for domain bank.test"),
        Invalid(name: "a bare public suffix", domains: ["test": pinned([leafPin, backupPin])], reason: "TrustKit was initialized with an invalid domain test"),
        Invalid(
            name: "an exclusion with pins of its own",
            domains: [
                "bank.test": pinned([leafPin, backupPin], includeSubdomains: true),
                "www.bank.test": TrustKitDomainPolicy(publicKeyHashes: [leafPin], excludeSubdomainFromParentPolicy: true),
            ],
            reason: "TrustKit was initialized with TSKExcludeSubdomainFromParentPolicy for domain www.bank.test but detected additional configuration keys"),
        Invalid(
            name: "an exclusion without a parent that includes subdomains",
            domains: ["bank.test": pinned([leafPin, backupPin]), "www.bank.test": .excludedFromParentPolicy],
            reason: "TrustKit was initialized with TSKExcludeSubdomainFromParentPolicy for domain www.bank.test but could not find a policy for a parent domain"
        ),
    ]

    @Test("A configuration TrustKit would refuse throws TrustKit's message", arguments: invalid)
    func refuses(_ invalid: Invalid) {
        #expect(throws: TrustKitConfigurationError(reason: invalid.reason)) { try TrustKitConfiguration(pinnedDomains: invalid.domains) }
    }

    @Test("One pin is enough in report-only, and the error says TrustKit's exception name")
    func reportOnlyNeedsOnePin() throws {
        #expect(try TrustKitConfiguration(pinnedDomains: Self.reportOnly).pinnedDomains.count == 1)
        #expect(
            TrustKitConfigurationError(reason: "x").description == "TrustKit configuration invalid: x")
    }

    @Test("The policy of a host is its own entry, else its longest parent with includeSubdomains")
    func lookup() throws {
        let configuration = try TrustKitConfiguration(pinnedDomains: [
            "bank.test": Self.pinned([Self.leafPin, Self.backupPin], includeSubdomains: true),
            "api.bank.test": Self.pinned([Self.leafPin, Self.backupPin], includeSubdomains: true),
            "cdn.bank.test": Self.pinned([Self.leafPin, Self.backupPin]),
        ])
        #expect(configuration.policyKey(forHost: "bank.test") == "bank.test")
        #expect(configuration.policyKey(forHost: "www.bank.test") == "bank.test")
        #expect(configuration.policyKey(forHost: "v1.api.bank.test") == "api.bank.test")
        #expect(configuration.policyKey(forHost: "img.cdn.bank.test") == "bank.test")
        #expect(configuration.policyKey(forHost: "notbank.test") == nil)
    }

    @Test("TSKExpirationDate is the start of that day in UTC, and only yyyy-MM-dd reads")
    func expiration() {
        #expect(Self.pinned([], expires: "2026-05-31").expiration == AFFixtures.date("2026-05-31T00:00:00Z"))
        for unreadable in ["2026-5-31", "2026-02-30", "31/05/2026", "2026-05-31T00:00:00Z"] {
            #expect(Self.pinned([], expires: unreadable).expiration == nil, "\(unreadable)")
        }
    }
}
