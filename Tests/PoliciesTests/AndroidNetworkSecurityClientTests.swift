import Foundation
import PKI
import Policies
import Testing

/// Android's Network Security Config: the config for the host, its trust anchors, its pin-set, then the host name.
struct AndroidNetworkSecurityClientTests {
    static let world = AndroidWorld.shared
    typealias NSC = NetworkSecurityConfig

    static let leafPin = NSC.Pin(certificate: world.leaf)
    static let backupPin = NSC.Pin(certificate: world.root)
    static let pins = NSC.PinSet(pins: [leafPin, backupPin])

    static func pinned(_ pinSet: NSC.PinSet = pins, anchors: [NSC.CertificatesEntry]? = nil, includeSubdomains: Bool = false) -> NSC {
        NSC(domainConfigs: [NSC.DomainConfig(domains: [NSC.Domain("bank.test", includeSubdomains: includeSubdomains)], trustAnchors: anchors, pinSet: pinSet)])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let client: AndroidNetworkSecurityClient
        let chain: [Certificate]
        var host = "bank.test"
        var attackerInstalled = false
        let trusted: Bool
        let deciding: TraceStep.Check
        let code: String?
        var testDescription: String { name }
    }

    static let systemAndUser: [NSC.CertificatesEntry] = [.init(.system), .init(.user)]

    static let cases: [Case] = [
        Case(
            name: "the platform default trusts the real chain", client: .init(), chain: world.realChain, trusted: true,
            deciding: .androidHostnameVerifier, code: nil),
        Case(
            name: "a forged chain from an untrusted CA fails the trust anchors", client: .init(config: pinned()), chain: world.forgedChain,
            trusted: false, deciding: .androidTrustAnchors, code: "untrustedRoot"),
        Case(
            name: "targetSdkVersion 24 and later do not trust a user-installed CA", client: .init(targetSdkVersion: 24),
            chain: world.forgedChain, attackerInstalled: true, trusted: false, deciding: .androidTrustAnchors, code: "untrustedRoot"),
        Case(
            name: "targetSdkVersion 23 trusts a user-installed CA", client: .init(targetSdkVersion: 23), chain: world.forgedChain,
            attackerInstalled: true, trusted: true, deciding: .androidHostnameVerifier, code: nil),
        Case(
            name: "src=\"user\" opts in to user-installed CAs", client: .init(config: NSC(baseConfig: .init(trustAnchors: systemAndUser))),
            chain: world.forgedChain, attackerInstalled: true, trusted: true, deciding: .androidHostnameVerifier, code: nil),
        Case(
            name: "a pin-set stops the user-installed CA the config trusts", client: .init(config: pinned(anchors: systemAndUser)),
            chain: world.forgedChain, attackerInstalled: true, trusted: false, deciding: .androidPinSet, code: "androidPinVerificationFailed"),
        Case(
            name: "an expired pin-set falls back to CA trust",
            client: .init(config: pinned(NSC.PinSet(pins: [leafPin, backupPin], expiration: CalendarDay.date("2026-01-01")), anchors: systemAndUser)),
            chain: world.forgedChain, attackerInstalled: true, trusted: true, deciding: .androidHostnameVerifier, code: nil),
        Case(
            name: "overridePins on the user anchors switches the pins off",
            client: .init(config: pinned(anchors: [.init(.system), .init(.user, overridePins: true)])), chain: world.forgedChain,
            attackerInstalled: true, trusted: true, deciding: .androidHostnameVerifier, code: nil),
        Case(
            name: "debug-overrides trust user CAs over the pins in a debuggable build",
            client: .init(config: NSC(domainConfigs: pinned().domainConfigs, debugOverrides: [.init(.user)]), debuggable: true),
            chain: world.forgedChain, attackerInstalled: true, trusted: true, deciding: .androidHostnameVerifier, code: nil),
        Case(
            name: "debug-overrides are ignored in a release build",
            client: .init(config: NSC(domainConfigs: pinned().domainConfigs, debugOverrides: [.init(.user)])), chain: world.forgedChain,
            attackerInstalled: true, trusted: false, deciding: .androidTrustAnchors, code: "untrustedRoot"),
        Case(
            name: "the pinned real chain passes", client: .init(config: pinned()), chain: world.realChain, trusted: true,
            deciding: .androidHostnameVerifier, code: nil),
        Case(
            name: "pinning the root lets the CA's mis-issued leaf through", client: .init(config: pinned(NSC.PinSet(pins: [backupPin]))),
            chain: [world.misissued.certificate, world.bank.intermediate.certificate], trusted: true, deciding: .androidHostnameVerifier,
            code: nil),
        Case(
            name: "pinning the leaf catches the CA's mis-issued leaf", client: .init(config: pinned(NSC.PinSet(pins: [leafPin]))),
            chain: [world.misissued.certificate, world.bank.intermediate.certificate], trusted: false, deciding: .androidPinSet,
            code: "androidPinVerificationFailed"),
        Case(
            name: "the appended pinned certificate is not in the trusted chain", client: .init(config: pinned(anchors: systemAndUser)),
            chain: world.appendedPinChain, attackerInstalled: true, trusted: false, deciding: .androidPinSet, code: "androidPinVerificationFailed"),
        Case(
            name: "an expired chain fails the trust anchors", client: .init(config: pinned()),
            chain: [world.expired.certificate, world.bank.intermediate.certificate], trusted: false, deciding: .androidTrustAnchors, code: "expired"),
        Case(
            name: "a valid chain for another host fails the host-name verifier", client: .init(), chain: world.realChain, host: "evil.test",
            trusted: false, deciding: .androidHostnameVerifier, code: "hostnameMismatch"),
        Case(
            name: "a CN-only leaf fails the SAN-only verifier", client: .init(),
            chain: [world.commonNameOnly.certificate, world.bank.intermediate.certificate], trusted: false, deciding: .androidHostnameVerifier,
            code: "hostnameMismatch"),
        Case(
            name: "a domain-config without includeSubdomains does not pin www.bank.test",
            client: .init(config: pinned(anchors: systemAndUser)), chain: world.forgedChain, host: "www.bank.test", attackerInstalled: true,
            trusted: false, deciding: .androidTrustAnchors, code: "untrustedRoot"),
        Case(
            name: "includeSubdomains pins www.bank.test", client: .init(config: pinned(anchors: systemAndUser, includeSubdomains: true)),
            chain: world.forgedChain, host: "www.bank.test", attackerInstalled: true, trusted: false, deciding: .androidPinSet,
            code: "androidPinVerificationFailed"),
        Case(
            name: "a bundled @raw anchor replaces the system store",
            client: .init(config: NSC(baseConfig: .init(trustAnchors: [.init(.resource(name: "@raw/attacker_ca", certificates: [world.attackerCA]))]))),
            chain: world.realChain, trusted: false, deciding: .androidTrustAnchors, code: "missingIssuer"),
    ]

    @Test("Each documented Network Security Config behaviour gives its verdict at its deciding step", arguments: cases)
    func decision(_ example: Case) {
        let evaluation = example.client.evaluate(Self.world.connection(example.chain, host: example.host, attackerInstalled: example.attackerInstalled))
        #expect(evaluation.isTrusted == example.trusted, "\(evaluation.text)")
        #expect(evaluation.decidingStep?.check == example.deciding, "\(evaluation.text)")
        #expect(evaluation.rejection?.code == example.code)
    }

    @Test("A pinned request's trace names the config, the anchor, the matching key and the host check")
    func fullTrace() {
        let evaluation = AndroidNetworkSecurityClient(
            config: Self.pinned(NSC.PinSet(pins: [Self.leafPin, Self.backupPin], expiration: CalendarDay.date("2027-01-01")))
        )
        .evaluate(Self.world.connection(Self.world.realChain))
        #expect(
            evaluation.steps == [
                TraceStep(
                    .androidDomainConfig, .note,
                    "'bank.test' is governed by the domain-config for 'bank.test': trust anchors system "
                        + "(inherited from the platform default for targetSdkVersion 34); a pin-set of 2 pins, expiring 2027-01-01"),
                TraceStep(
                    .androidTrustAnchors, .passed,
                    "the chain validates against the trust anchors (system): path 'bank.test' -> 'Bank Intermediate' -> 'Bank Root', "
                        + "ending at 'Bank Root' from the system CA store"),
                TraceStep(
                    .androidPinSet, .passed,
                    "'Bank Root' in the trusted chain 'bank.test' -> 'Bank Intermediate' -> 'Bank Root' has a public key whose SHA-256 is in the pin-set "
                        + "(SHA-256/\(Self.world.root.publicKeySHA256Base64))"),
                TraceStep(
                    .androidHostnameVerifier, .passed,
                    "the default HostnameVerifier (Android's bundled OkHostnameVerifier) accepts 'bank.test': the leaf 'bank.test' has the SAN names "
                        + "bank.test, www.bank.test"),
            ])
    }

    @Test("Pins are skipped with the reason: overridePins names its anchor and its element")
    func overridePinsSentence() {
        let client = AndroidNetworkSecurityClient(config: NSC(domainConfigs: Self.pinned().domainConfigs, debugOverrides: [.init(.user)]), debuggable: true)
        let evaluation = client.evaluate(Self.world.connection(Self.world.forgedChain, attackerInstalled: true))
        #expect(
            evaluation.steps.first { $0.check == .androidPinSet }
                == TraceStep(
                    .androidPinSet, .skipped,
                    "the chain ends at 'Attacker CA', a trust anchor from <certificates src=\"user\" overridePins=\"true\"> in debug-overrides: "
                        + "pins are not checked for chains it anchors"))
    }

    @Test("A nested domain-config inherits its parent's pin-set and names it")
    func nestedInheritance() {
        let nested = NSC.DomainConfig(domains: [NSC.Domain("api.bank.test")], cleartextTrafficPermitted: true)
        let parent = NSC.DomainConfig(domains: [NSC.Domain("bank.test")], trustAnchors: Self.systemAndUser, pinSet: Self.pins, domainConfigs: [nested])
        let client = AndroidNetworkSecurityClient(config: NSC(domainConfigs: [parent]))
        let evaluation = client.evaluate(Self.world.connection(Self.world.forgedChain, host: "api.bank.test", attackerInstalled: true))
        #expect(evaluation.rejection == .androidPinVerificationFailed)
        #expect(
            evaluation.steps.first?.detail
                == "'api.bank.test' is governed by the domain-config for 'api.bank.test': trust anchors system, user "
                + "(inherited from an enclosing domain-config ('bank.test')); a pin-set of 2 pins, with no expiration")
        #expect(client.evaluateLoad(scheme: "http", host: "api.bank.test")?.isTrusted == true)
    }

    @Test(
        "Cleartext follows cleartextTrafficPermitted, then the target's default",
        arguments: [
            (NSC(), 34, false), (NSC(), 27, true), (NSC(baseConfig: .init(cleartextTrafficPermitted: true)), 34, true),
            (
                NSC(
                    baseConfig: .init(cleartextTrafficPermitted: true), domainConfigs: [.init(domains: [.init("bank.test")], cleartextTrafficPermitted: false)]),
                34, false
            ),
        ])
    func cleartext(config: NSC, targetSdk: Int, permitted: Bool) throws {
        let client = AndroidNetworkSecurityClient(config: config, targetSdkVersion: targetSdk)
        let evaluation = try #require(client.evaluateLoad(scheme: "http", host: "bank.test"))
        #expect(evaluation.isTrusted == permitted)
        #expect(evaluation.rejection == (permitted ? nil : .androidCleartextNotPermitted))
        #expect(client.evaluateLoad(scheme: "https", host: "bank.test") == nil)
    }

    @Test("A refused cleartext load names the attribute and Android's message")
    func cleartextSentence() {
        let evaluation = AndroidNetworkSecurityClient().evaluateLoad(scheme: "http", host: "bank.test")
        #expect(
            evaluation?.steps
                == [
                    TraceStep(
                        .androidCleartextTraffic, .failed,
                        "cleartextTrafficPermitted is false (set by the platform default for targetSdkVersion 34) for 'bank.test': "
                            + "the http:// load is refused before any connection. IOException: Cleartext HTTP traffic to bank.test not permitted")
                ])
    }

    @Test("The pin-set's expiration is a strict yyyy-MM-dd day in UTC")
    func expirationDates() {
        #expect(CalendarDay.date("2027-01-01") == AFFixtures.date("2027-01-01T00:00:00Z"))
        #expect(CalendarDay.date("2027-02-30") == nil)
        #expect(CalendarDay.date("27-01-01") == nil)
        #expect(CalendarDay.date("2027-1-1") == nil)
    }

    @Test("A <pin> must be a SHA-256 digest of 32 bytes")
    func malformedPins() {
        #expect(throws: CertificatePinnerError.unsupportedDigest("SHA-1")) { try NSC.Pin(digestAlgorithm: "SHA-1", base64: Self.leafPin.digest) }
        #expect(throws: CertificatePinnerError.invalidPinHash("AAAA")) { try NSC.Pin(base64: "AAAA") }
        #expect((try? NSC.Pin(base64: Self.leafPin.digest)) == Self.leafPin)
    }
}

/// Android has no full-trust switch: a CA the user installed is in the user-added store, whatever iOS would say.
struct AndroidUserAddedStoreTests {
    static let world = AndroidWorld.shared

    func connection(targetSdk: Int) -> PolicyEvaluation {
        let bank = Self.world.bank
        let trust = ServerTrust(
            certificates: Self.world.forgedChain,
            deviceTrustStore: DeviceTrustStore(system: [bank.root.certificate], installedWithoutFullTrust: [bank.attackerCA.certificate]),
            policy: .ssl(host: "bank.test"), verifyDate: BankWorld.clock)
        let connection = PresentedConnection(serverTrust: trust, negotiated: AndroidWorld.tls13, host: "bank.test", domain: "bank.test")
        return AndroidNetworkSecurityClient(targetSdkVersion: targetSdk).evaluate(connection)
    }

    @Test("A CA installed without iOS's full trust is a user-added CA on Android: trusted at target SDK 23, an untrusted root at 34")
    func installedWithoutFullTrustIsUserAdded() {
        #expect(connection(targetSdk: 23).isTrusted)
        let refused = connection(targetSdk: 34)
        #expect(refused.rejection?.code == "untrustedRoot", "\(refused.text)")
        #expect(!refused.text.contains("Certificate Trust Settings"))
    }
}
