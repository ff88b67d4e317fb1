import PKI
import Policies
import Testing

/// `NSPinnedDomains` (iOS 14+) as the system's SSL policy checks it, on real certificates: which entries cover a
/// host, the leaf and CA lists, both together, and where in the iOS client the check is made.
struct NSPinnedDomainsTests {
    let world = BankWorld.shared

    typealias Identity = AppTransportSecurity.PinnedIdentity

    func key(_ certificate: Certificate) -> Identity { .spkiSHA256Base64(certificate.publicKeySHA256Base64) }

    func ats(_ entry: AppTransportSecurity.PinnedDomain, domain: String = "bank.test") -> AppTransportSecurity {
        AppTransportSecurity(pinnedDomains: [domain: entry])
    }

    func evaluate(
        _ ats: AppTransportSecurity, handler: ChallengeHandler = .systemDefault, chain: [Certificate]? = nil, attackerInstalled: Bool = false,
        host: String = "bank.test"
    ) -> PolicyEvaluation {
        IOSClient(ats: ats, challengeHandler: handler).evaluate(
            serverTrust: world.trust(chain ?? world.realChain, attackerInstalled: attackerInstalled),
            negotiated: AppTransportSecurityTests.tls13, host: host, domain: host)
    }

    func step(_ evaluation: PolicyEvaluation) -> TraceStep? { evaluation.steps.first { $0.check == .pinnedIdentities } }

    // MARK: - Which entries cover a host

    @Test func anEntryCoversItsOwnNameInAnyCaseAndATrailingDot() {
        let pins = ats(.init(leafIdentities: [key(world.leaf.certificate)]))
        #expect(pins.pins(forHost: "BANK.test")?.domains == ["bank.test"])
        #expect(pins.pins(forHost: "bank.test.")?.domains == ["bank.test"])
        #expect(pins.pins(forHost: "www.bank.test") == nil)
    }

    @Test func includesSubdomainsCoversOneLabelBelowAndTheListsOfEveryCoveringEntryAddUp() {
        let parent = AppTransportSecurity.PinnedDomain(includesSubdomains: true, caIdentities: [key(world.intermediate.certificate)])
        let own = AppTransportSecurity.PinnedDomain(leafIdentities: [key(world.leaf.certificate)])
        let pins = AppTransportSecurity(pinnedDomains: ["bank.test": parent, "www.bank.test": own])
        let covered = pins.pins(forHost: "www.bank.test")
        #expect(covered?.domains == ["bank.test", "www.bank.test"])
        #expect(covered?.caIdentities == [key(world.intermediate.certificate)])
        #expect(covered?.leafIdentities == [key(world.leaf.certificate)])
        #expect(pins.pins(forHost: "api.www.bank.test") == nil)
    }

    // MARK: - The checks

    @Test func theInstalledCAsForgeryPassesTheSystemButFailsACAPin() {
        let evaluation = evaluate(ats(.init(caIdentities: [key(world.intermediate.certificate)])), chain: world.forgedChain, attackerInstalled: true)
        #expect(evaluation.steps.first { $0.check == .systemTrust }?.outcome == .passed)
        #expect(step(evaluation)?.outcome == .failed)
        #expect(evaluation.rejection == .pinnedIdentityMismatch)
        #expect(evaluation.urlError == .serverCertificateUntrusted)
    }

    @Test func aCAPinMatchesTheAnchorTheServerNeverSends() {
        let evaluation = evaluate(ats(.init(caIdentities: [key(world.root.certificate)])))
        #expect(step(evaluation)?.outcome == .passed)
        #expect(evaluation.rejection == nil)
    }

    @Test func aCAPinOnTheLeafsOwnKeyMatchesNothing() {
        let evaluation = evaluate(ats(.init(caIdentities: [key(world.leaf.certificate)])))
        #expect(evaluation.rejection == .pinnedIdentityMismatch)
    }

    @Test func aPinnedCAIsNoAnchor() {
        // The attacker's CA pinned but not installed: the path is untrusted before any pin is checked.
        let evaluation = evaluate(ats(.init(caIdentities: [key(world.attackerCA.certificate)])), chain: world.forgedChain)
        #expect(evaluation.steps.first { $0.check == .systemTrust }?.outcome == .failed)
        #expect(step(evaluation) == nil)
        #expect(evaluation.rejection?.code != RejectionReason.pinnedIdentityMismatch.code)
    }

    @Test func withBothListsBothMustMatch() {
        let leafOnly = evaluate(ats(.init(caIdentities: [key(world.attackerCA.certificate)], leafIdentities: [key(world.leaf.certificate)])))
        #expect(leafOnly.rejection == .pinnedIdentityMismatch)
        let both = evaluate(ats(.init(caIdentities: [key(world.intermediate.certificate)], leafIdentities: [key(world.leaf.certificate)])))
        #expect(both.rejection == nil)
        #expect(step(both)?.outcome == .passed)
    }

    @Test func anEmptyLeafListMatchesNoLeaf() {
        #expect(evaluate(ats(.init(leafIdentities: []))).rejection == .pinnedIdentityMismatch)
    }

    @Test func aLessonsCertificateIdStandsForTheKeyTheClientIsGiven() {
        let pins = ats(.init(leafIdentities: [.certificate("bank-leaf")]))
        let given = IOSClient(ats: pins, challengeHandler: .systemDefault, pinnedKeys: ["bank-leaf": world.leaf.certificate.publicKeySHA256Base64])
        let trusted = given.evaluate(
            serverTrust: world.trust(world.realChain), negotiated: AppTransportSecurityTests.tls13, host: "bank.test", domain: "bank.test")
        #expect(trusted.rejection == nil)
        #expect(step(trusted)?.detail.contains("the key of 'bank-leaf'") == true)
        let other = IOSClient(ats: pins, challengeHandler: .systemDefault, pinnedKeys: ["bank-leaf": world.attackerCA.certificate.publicKeySHA256Base64])
        let refused = other.evaluate(
            serverTrust: world.trust(world.realChain), negotiated: AppTransportSecurityTests.tls13, host: "bank.test", domain: "bank.test")
        #expect(refused.rejection == .pinnedIdentityMismatch)
    }

    // MARK: - Where the check is made

    @Test func afterAnAcceptAllBlockATSsEvaluationFailsOnThePinWithSecureConnectionFailed() {
        let evaluation = evaluate(
            ats(.init(leafIdentities: [key(world.leaf.certificate)])), handler: .acceptAll, chain: world.forgedChain, attackerInstalled: true)
        #expect(step(evaluation)?.outcome == .failed)
        #expect(evaluation.decidingStep?.check == .atsServerTrust)
        #expect(evaluation.decidingStep?.outcome == .failed)
        #expect(evaluation.urlError == .secureConnectionFailed)
    }

    @Test func arbitraryLoadsLeavesTheDefaultHandlingsPinsInPlace() {
        var pinned = ats(.init(leafIdentities: [key(world.leaf.certificate)]))
        pinned.allowsArbitraryLoads = true
        let evaluation = evaluate(pinned, chain: world.forgedChain, attackerInstalled: true)
        #expect(evaluation.rejection == .pinnedIdentityMismatch)
    }

    @Test func anAcceptAllBlockOnAnExemptHostSkipsThePins() {
        var pinned = ats(.init(leafIdentities: [key(world.leaf.certificate)]))
        pinned.allowsArbitraryLoads = true
        let evaluation = evaluate(pinned, handler: .acceptAll, chain: world.forgedChain, attackerInstalled: true)
        #expect(evaluation.rejection == nil)
        #expect(step(evaluation)?.outcome == .skipped)
    }

    @Test func aHostNoEntryCoversHasNoPinStep() {
        let evaluation = evaluate(ats(.init(leafIdentities: [key(world.attackerCA.certificate)]), domain: "other.test"))
        #expect(step(evaluation) == nil)
        #expect(evaluation.rejection == nil)
    }

    @Test func theSummaryNamesTheEntryAndItsLists() {
        let pins = ats(.init(includesSubdomains: true, leafIdentities: [key(world.leaf.certificate), .certificate("bank-backup")]))
        #expect(pins.summary == "NSPinnedDomains 'bank.test' (NSIncludesSubdomains YES, NSPinnedLeafIdentities 2)")
    }
}
