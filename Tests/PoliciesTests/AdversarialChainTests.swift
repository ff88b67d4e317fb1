import PKI
import Policies
import Testing

/// Chains built to fool a careless implementation; each names the real-world bug it reproduces.
struct AdversarialChainTests {
    let world = BankWorld.shared

    @Test(arguments: [SSLPinningMode.publicKey, .certificate], [false, true])
    func aPinnedCertificateAppendedToAnAttackerChainDoesNotPassPinning(mode: SSLPinningMode, allowInvalid: Bool) {
        // OkHttp CVE-2016-2402: the pinned intermediate is public, so the attacker simply sends it along.
        let chain = world.forgedChain + [world.intermediate.certificate]
        let policy = SecurityPolicy(SSLPinningMode: mode, allowInvalidCertificates: allowInvalid, pinnedCertificates: [world.intermediate.certificate])
        let evaluation = policy.evaluate(serverTrust: world.trust(chain, attackerInstalled: true), forDomain: "bank.test")

        #expect(!evaluation.isTrusted)
        #expect(!evaluation.path.contains(world.intermediate.certificate))
    }

    @Test func aLeafThatOnlyNamesThePinnedIssuerIsNotLinkedToItInPublicKeyMode() {
        // The forgery copies the real intermediate's name and key identifier but is signed by the attacker,
        // so the intermediate sits next to it without being its issuer. With allowInvalidCertificates the
        // path is the leaf plus certificates linked by valid signatures, which excludes the intermediate.
        let impostorIssuer = Identity(certificate: world.intermediate.certificate, privateKey: world.attackerCA.privateKey)
        let crafted = try! world.factory.issue(
            .serverLeaf(
                label: "crafted bank.test", dnsNames: ["bank.test"], notBefore: BankWorld.clock.addingTimeInterval(-86_400),
                notAfter: BankWorld.clock.addingTimeInterval(86_400)),
            key: world.attackerCA.privateKey, signedBy: impostorIssuer)
        let trust = world.trust([crafted, world.intermediate.certificate])
        let policy = SecurityPolicy(SSLPinningMode: .publicKey, allowInvalidCertificates: true, pinnedCertificates: [world.intermediate.certificate])

        #expect(trust.evaluate().failures.map(\.kind).contains(.badSignature))
        #expect(trust.evaluate().path == [crafted])
        let evaluation = policy.evaluate(serverTrust: trust, forDomain: "bank.test")
        #expect(!evaluation.isTrusted)
        #expect(evaluation.rejection == .pinnedPublicKeyNotInPath)
    }

    @Test func aLeafCertificateUsedAsAnIssuerIsInvalid() throws {
        // iOS CVE-2011-0228: a real leaf for attacker.test, which is not a CA, signs a leaf for bank.test.
        let attackerLeaf = try world.factory.makeIdentity(
            .serverLeaf(
                label: "attacker.test", dnsNames: ["attacker.test"], notBefore: world.leaf.certificate.notBefore,
                notAfter: world.leaf.certificate.notAfter),
            signedBy: world.intermediate)
        let impostor = try world.factory.makeIdentity(
            .serverLeaf(
                label: "bank.test via attacker.test", dnsNames: ["bank.test"], notBefore: world.leaf.certificate.notBefore,
                notAfter: world.leaf.certificate.notAfter),
            signedBy: attackerLeaf)
        var trust = world.trust([impostor.certificate, attackerLeaf.certificate, world.intermediate.certificate])
        trust.policy = .ssl(host: "bank.test")

        let result = trust.evaluate()
        #expect(!result.isValid)
        #expect(result.reason == TrustFailure(kind: .issuerNotCA, certificate: attackerLeaf.certificate))
        #expect(!SecurityPolicy.defaultPolicy.evaluate(serverTrust: trust, forDomain: "bank.test").isTrusted)
    }

    @Test func aCrossSignedRootPinnedInCertificateModePasses() {
        // The server sends "Test Root CA 1" cross-signed; the app pins the self-signed original instead.
        let fixtures = AFFixtures.shared
        let policy = SecurityPolicy.policy(withPinningMode: .certificate, pinnedCertificates: [fixtures.rootCA1SelfSigned])
        let evaluation = policy.evaluate(serverTrust: fixtures.trust(fixtures.httpbinChain), forDomain: "httpbin.org")

        #expect(evaluation.isTrusted)
        #expect(evaluation.path == [fixtures.leaf, fixtures.serverCA, fixtures.rootCA1SelfSigned])
        #expect(fixtures.rootCA1SelfSigned.der != fixtures.rootCA1.der)
    }

    @Test func aCertificateThatNamesTheHostOnlyInItsCommonNameFailsHostnameValidation() {
        // iOS 13+ and OkHttp read the SAN only; AF on older iOS (and OpenSSL's default) would accept the CN.
        let fixtures = AFFixtures.shared
        var trust = fixtures.trust([fixtures.foobarCommonNameOnly])
        trust.setAnchorCertificates([fixtures.foobarCommonNameOnly])
        trust.policy = .ssl(host: "foobar.com")
        #expect(trust.evaluate().failures.map(\.kind) == [.hostnameMismatch(host: "foobar.com")])

        let policy = SecurityPolicy(SSLPinningMode: .certificate, allowInvalidCertificates: true, pinnedCertificates: [fixtures.foobarCommonNameOnly])
        let evaluation = policy.evaluate(serverTrust: fixtures.trust([fixtures.foobarCommonNameOnly]), forDomain: "foobar.com")
        #expect(!evaluation.isTrusted)
        #expect(evaluation.decidingStep?.check == .pinnedAnchors)
    }

    @Test func theBuiltPathLeavesOutAnUnrelatedCertificateAndAddsTheAnchorTheServerDidNotSend() {
        let fixtures = AFFixtures.shared
        var trust = fixtures.trust(fixtures.httpbinChain + [fixtures.altName])
        trust.policy = .ssl(host: "httpbin.org")
        let result = trust.evaluate()

        #expect(result.isValid)
        #expect(result.path == fixtures.httpbinChain + [fixtures.deviceTrustStore[0]])
    }

    @Test func aWildcardCoversExactlyOneLabel() {
        let fixtures = AFFixtures.shared
        func validates(_ host: String) -> Bool {
            var trust = fixtures.trust(fixtures.httpbinChain)
            trust.policy = .ssl(host: host)
            return trust.evaluate().isValid
        }
        #expect(validates("api.httpbin.org"))
        #expect(!validates("deep.api.httpbin.org"))
        #expect(!validates("otherhttpbin.org"))
    }
}
