import Foundation
import PKI
import Policies
import Testing

/// OkHttp: the trust manager, OkHostnameVerifier, then CertificatePinner, today and before the CVE-2016-2402 fix.
struct OkHttpClientTests {
    static let world = AndroidWorld.shared

    static func pin(_ pattern: String, _ certificate: Certificate) -> CertificatePinner.Pin {
        CertificatePinner.Pin(pattern: pattern, certificate: certificate)
    }

    static func client(
        _ version: OkHttpClient.Version = .current, pins: [CertificatePinner.Pin] = [], targetSdk: Int = NetworkSecurityConfig.defaultTargetSdkVersion
    ) -> OkHttpClient {
        OkHttpClient(version: version, certificatePinner: CertificatePinner(pins: pins), trustManager: .platformDefault(targetSdkVersion: targetSdk))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let client: OkHttpClient
        let chain: [Certificate]
        var host = "bank.test"
        var attackerInstalled = false
        let trusted: Bool
        let deciding: TraceStep.Check
        let code: String?
        var testDescription: String { name }
    }

    static let leafPin = pin("bank.test", world.leaf)
    static let rootPin = pin("bank.test", world.root)

    static let cases: [Case] = [
        Case(
            name: "no pins: the real chain is trusted at the host-name check", client: client(), chain: world.realChain, trusted: true,
            deciding: .okHttpHostnameVerifier, code: nil),
        Case(
            name: "a forged chain from an untrusted CA fails the trust manager", client: client(pins: [leafPin]), chain: world.forgedChain,
            trusted: false, deciding: .okHttpTrustManager, code: "untrustedRoot"),
        Case(
            name: "a user-installed CA is not trusted by an app targeting API 34", client: client(), chain: world.forgedChain,
            attackerInstalled: true, trusted: false, deciding: .okHttpTrustManager, code: "untrustedRoot"),
        Case(
            name: "a user-installed CA is trusted by an app targeting API 23 without pins", client: client(targetSdk: 23),
            chain: world.forgedChain, attackerInstalled: true, trusted: true, deciding: .okHttpHostnameVerifier, code: nil),
        Case(
            name: "the leaf pin stops the user-installed CA on API 23", client: client(pins: [leafPin], targetSdk: 23),
            chain: world.forgedChain, attackerInstalled: true, trusted: false, deciding: .okHttpCertificatePinner,
            code: "okHttpCertificatePinningFailure"),
        Case(
            name: "a pinned leaf passes the pinner", client: client(pins: [leafPin]), chain: world.realChain, trusted: true,
            deciding: .okHttpCertificatePinner, code: nil),
        Case(
            name: "a pinned root the server never sends passes: the cleaned chain adds it", client: client(pins: [rootPin]),
            chain: world.realChain, trusted: true, deciding: .okHttpCertificatePinner, code: nil),
        Case(
            name: "pinning the CA lets its mis-issued leaf through", client: client(pins: [rootPin]),
            chain: [world.misissued.certificate, world.bank.intermediate.certificate], trusted: true, deciding: .okHttpCertificatePinner,
            code: nil),
        Case(
            name: "pinning the leaf catches the CA's mis-issued leaf", client: client(pins: [leafPin]),
            chain: [world.misissued.certificate, world.bank.intermediate.certificate], trusted: false, deciding: .okHttpCertificatePinner,
            code: "okHttpCertificatePinningFailure"),
        Case(
            name: "today's OkHttp drops the appended pinned certificate", client: client(pins: [leafPin], targetSdk: 23),
            chain: world.appendedPinChain, attackerInstalled: true, trusted: false, deciding: .okHttpCertificatePinner,
            code: "okHttpCertificatePinningFailure"),
        Case(
            name: "OkHttp before the fix matches the appended pinned certificate (CVE-2016-2402)",
            client: client(.beforeChainCleaning, pins: [leafPin], targetSdk: 23), chain: world.appendedPinChain, attackerInstalled: true,
            trusted: true, deciding: .okHttpCertificatePinner, code: nil),
        Case(
            name: "an expired chain fails the trust manager", client: client(pins: [leafPin]),
            chain: [world.expired.certificate, world.bank.intermediate.certificate], trusted: false, deciding: .okHttpTrustManager,
            code: "expired"),
        Case(
            name: "a valid chain for another host fails the host-name verifier", client: client(), chain: world.realChain, host: "evil.test",
            trusted: false, deciding: .okHttpHostnameVerifier, code: "hostnameMismatch"),
        Case(
            name: "a host no pattern matches is not pinned", client: client(pins: [leafPin]), chain: world.realChain, host: "www.bank.test",
            trusted: true, deciding: .okHttpHostnameVerifier, code: nil),
        Case(
            name: "a CN-only leaf fails today's SAN-only verifier", client: client(),
            chain: [world.commonNameOnly.certificate, world.bank.intermediate.certificate], trusted: false, deciding: .okHttpHostnameVerifier,
            code: "hostnameMismatch"),
        Case(
            name: "a CN-only leaf passes the old verifier's common-name fallback", client: client(.beforeChainCleaning),
            chain: [world.commonNameOnly.certificate, world.bank.intermediate.certificate], trusted: true, deciding: .okHttpHostnameVerifier,
            code: nil),
        Case(
            name: "the app's own trust manager trusts only its certificates",
            client: OkHttpClient(trustManager: .certificates([world.attackerCA])), chain: world.realChain, trusted: false,
            deciding: .okHttpTrustManager, code: "missingIssuer"),
    ]

    @Test("Each documented OkHttp behaviour gives its verdict at its deciding step", arguments: cases)
    func decision(_ example: Case) {
        let evaluation = example.client.evaluate(Self.world.connection(example.chain, host: example.host, attackerInstalled: example.attackerInstalled))
        #expect(evaluation.isTrusted == example.trusted, "\(evaluation.text)")
        #expect(evaluation.decidingStep?.check == example.deciding, "\(evaluation.text)")
        #expect(evaluation.rejection?.code == example.code)
    }

    @Test("The appended pinned certificate: today's trace names the dropped certificate, the old one checks the presented chain")
    func appendedPinnedCertificateTraces() throws {
        let connection = Self.world.connection(Self.world.appendedPinChain, attackerInstalled: true)
        let today = Self.client(pins: [Self.leafPin], targetSdk: 23).evaluate(connection)
        #expect(
            today.steps.first { $0.check == .okHttpChainCleaning }
                == TraceStep(
                    .okHttpChainCleaning, .note,
                    "the certificate chain cleaner rebuilds the chain from the leaf, certificate by certificate by signature, to a trusted root: "
                        + "'forged bank.test' -> 'Attacker CA'; the presented 'bank.test' is dropped"))
        let failure = try #require(today.steps.last)
        #expect(failure.detail.hasPrefix("SSLPeerUnverifiedException: Certificate pinning failure! No certificate of the cleaned chain"))
        #expect(failure.detail.contains("Pinned certificates for bank.test: \(Self.leafPin)"))

        let old = Self.client(.beforeChainCleaning, pins: [Self.leafPin], targetSdk: 23).evaluate(connection)
        #expect(
            old.steps.last
                == TraceStep(
                    .okHttpCertificatePinner, .passed, "'bank.test' in the presented chain has the public key of pin \(Self.leafPin) (pattern 'bank.test')"))
        #expect(old.path == [Self.world.bank.forged.certificate, Self.world.attackerCA])
    }

    @Test("Every step of a trusted, pinned request reads as OkHttp's order")
    func fullTrace() {
        let evaluation = Self.client(pins: [Self.leafPin]).evaluate(Self.world.connection(Self.world.realChain))
        #expect(
            evaluation.steps == [
                TraceStep(
                    .okHttpTrustManager, .passed,
                    "the platform's default trust manager (targetSdkVersion 34: the system CA store only; user-added CAs need targetSdkVersion 23 or lower) "
                        + "validates the chain: path 'bank.test' -> 'Bank Intermediate' -> 'Bank Root', ending at 'Bank Root' from the system CA store"),
                TraceStep(
                    .okHttpHostnameVerifier, .passed, "OkHostnameVerifier accepts 'bank.test': the leaf 'bank.test' has the SAN names bank.test, www.bank.test"),
                TraceStep(
                    .okHttpChainCleaning, .note,
                    "the certificate chain cleaner rebuilds the chain from the leaf, certificate by certificate by signature, to a trusted root: "
                        + "'bank.test' -> 'Bank Intermediate' -> 'Bank Root'"),
                TraceStep(
                    .okHttpCertificatePinner, .passed, "'bank.test' in the cleaned chain has the public key of pin \(Self.leafPin) (pattern 'bank.test')"),
            ])
    }

    @Test("An unpinned host skips the pinner and says why")
    func unpinnedHostSkips() {
        let evaluation = Self.client().evaluate(Self.world.connection(Self.world.realChain))
        #expect(
            evaluation.steps.suffix(2) == [
                TraceStep(.okHttpChainCleaning, .skipped, "the CertificatePinner has no pins, so CertificatePinner.check returns before cleaning the chain"),
                TraceStep(
                    .okHttpCertificatePinner, .skipped,
                    "the CertificatePinner has no pins: the host is not pinned, and the trust manager's verdict stands"),
            ])
    }

    @Test(
        "Host patterns match as OkHttp's Pin.matchesHostname does",
        arguments: [
            ("bank.test", "bank.test", true), ("bank.test", "www.bank.test", false),
            ("*.bank.test", "www.bank.test", true), ("*.bank.test", "bank.test", false), ("*.bank.test", "a.b.bank.test", false),
            ("**.bank.test", "bank.test", true), ("**.bank.test", "www.bank.test", true), ("**.bank.test", "a.b.bank.test", true),
            ("**.bank.test", "notbank.test", false), ("*.bank.test", "WWW.Bank.Test", true),
        ])
    func patterns(pattern: String, host: String, matches: Bool) throws {
        let pin = try CertificatePinner.Pin(pattern: pattern, pin: Self.world.leaf.publicKeyPin.replacingOccurrences(of: "sha256//", with: "sha256/"))
        #expect(pin.matchesHostname(host) == matches)
    }

    @Test("Before the fix only exact and *. patterns existed: **. matches nothing")
    func oldPatterns() throws {
        let pinner = CertificatePinner(pins: [Self.pin("**.bank.test", Self.world.leaf), Self.pin("*.bank.test", Self.world.root)])
        #expect(pinner.findMatchingPins("www.bank.test", version: .beforeChainCleaning) == [Self.pin("*.bank.test", Self.world.root)])
        #expect(pinner.findMatchingPins("bank.test", version: .beforeChainCleaning).isEmpty)
        #expect(pinner.findMatchingPins("bank.test", version: .current) == [Self.pin("**.bank.test", Self.world.leaf)])
    }

    @Test("A sha1/ pin matches the SHA-1 of the key")
    func sha1Pins() throws {
        let pin = try CertificatePinner.Pin(pattern: "bank.test", pin: "sha1/" + Self.world.leaf.publicKeySHA1Base64)
        #expect(pin.hashAlgorithm == .sha1)
        #expect(Self.client(pins: [pin]).evaluate(Self.world.connection(Self.world.realChain)).decidingStep?.outcome == .passed)
        #expect(Self.client(pins: [pin]).evaluate(Self.world.connection(Self.world.forgedChain, attackerInstalled: true)).isTrusted == false)
    }

    @Test(
        "Pins OkHttp's builder refuses are refused with its message",
        arguments: [
            ("bank.*.test", "sha256/AAAA", "Unexpected pattern: bank.*.test"),
            ("bank.test", "md5/AAAA", "pins must start with 'sha256/' or 'sha1/': md5/AAAA"),
            ("bank.test", "sha256/not base64!", "Invalid pin hash: sha256/not base64!"),
            ("bank.test", "sha256/", "Invalid pin hash: sha256/"),
        ])
    func malformedPins(pattern: String, pin: String, message: String) {
        #expect(throws: CertificatePinnerError.self) { try CertificatePinner.Pin(pattern: pattern, pin: pin) }
        do {
            _ = try CertificatePinner.Pin(pattern: pattern, pin: pin)
        } catch {
            #expect(error.description == message)
        }
    }
}
