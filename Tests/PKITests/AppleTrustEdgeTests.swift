import Foundation
import PKI
import Testing

/// Apple's answers at the edges of trust evaluation (issue 23, items 1 to 7), beyond the verdicts
/// `OpenSSLDifferentialTests` compares: the sentences a learner reads, every policy, the path that wins, and the peer
/// platforms, which keep OpenSSL's answers.
struct AppleTrustEdgeTests {
    let start = clock.addingTimeInterval(-86_400), end = clock.addingTimeInterval(365 * 86_400)

    func authority(_ name: String, signedBy issuer: Identity? = nil) throws -> Identity {
        try factory.makeIdentity(.authority(label: name, commonName: name, notBefore: start, notAfter: end), signedBy: issuer)
    }

    func leafSpec() -> CertificateSpec { .serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: end) }

    func evaluate(
        _ chain: [Certificate], _ store: DeviceTrustStore, policy: ServerTrust.Policy = .ssl(host: "bank.test"), platform: Platform = .iOS16,
        at date: Date = clock
    ) -> TrustResult {
        ServerTrust(certificates: chain, deviceTrustStore: store, policy: policy, verifyDate: date, platform: platform).evaluate()
    }

    @Test func aDSALeafIsWeakUnderEveryPolicyAndItsSentenceNamesTheAlgorithm() throws {
        let root = try authority("Root")
        let leaf = try factory.issue(leafSpec(), key: try dsaKey(), signedBy: root)
        let store = DeviceTrustStore(system: [root.certificate])

        for policy in [ServerTrust.Policy.ssl(host: "bank.test"), .basicX509] {
            for platform in Platform.iOS {
                let result = evaluate([leaf], store, policy: policy, platform: platform)
                #expect(result.failures.map(\.kind) == [.weakKey(forTLS: false)], "\(policy) \(platform)")
            }
        }
        #expect(
            evaluate([leaf], store).reason?.description
                == "'leaf' has a DSA 2048 key; iOS trusts only RSA and EC keys (and EdDSA keys from iOS 17 on), under every policy")
    }

    @Test func anEdDSALeafIsWeakBeforeIOS17AndFailsTheTLSKeySizeRuleFromIOS13On() throws {
        let root = try authority("Root")
        let leaf = try factory.issue(leafSpec(), key: try ed25519Key(), signedBy: root)
        let store = DeviceTrustStore(system: [root.certificate])

        #expect(evaluate([leaf], store, platform: .iOS16).failures.map(\.kind) == [.weakKey(forTLS: true)])
        #expect(evaluate([leaf], store, policy: .basicX509, platform: .iOS16).isValid)
        for platform in [Platform.iOS13, .iOS12] {
            for policy in [ServerTrust.Policy.ssl(host: "bank.test"), .basicX509] {
                #expect(evaluate([leaf], store, policy: policy, platform: platform).failures.map(\.kind) == [.weakKey(forTLS: false)], "\(platform) \(policy)")
            }
        }
        #expect(
            evaluate([leaf], store).reason?.description
                == "'leaf' has an EdDSA key (ED25519 256); iOS 13 and later accept only RSA (2048 bits or more) and EC (256 bits or more) keys in a TLS chain")
        #expect(
            evaluate([leaf], store, platform: .iOS12).reason?.description
                == "'leaf' has an EdDSA key (ED25519 256), which iOS before 17 counts as weak under every policy")
        #expect(evaluate([leaf], store, platform: .android).isValid)
    }

    @Test func anAuthorityWithAnEmptySubjectIsRefusedEvenUnderTheBasicPolicy() throws {
        var spec = CertificateSpec.authority(label: "Nameless CA", commonName: "unused", notBefore: start, notAfter: end)
        spec.subject = DistinguishedName(commonName: nil)
        let root = try authority("Root")
        let nameless = try factory.makeIdentity(spec, signedBy: root)
        let leaf = try factory.makeIdentity(leafSpec(), signedBy: nameless).certificate

        let result = evaluate([leaf, nameless.certificate], DeviceTrustStore(system: [root.certificate]), policy: .basicX509)

        #expect(result.failures.map(\.kind) == [.emptySubject])
        #expect(result.reason?.description == "'Nameless CA' is a certificate authority with an empty subject, which iOS never accepts")
    }

    @Test func anEmptySubjectLeafIsRefusedOnEveryIOSReleaseWithASentenceThatSaysWhatWouldPass() throws {
        let root = try authority("Root")
        var spec = leafSpec()
        spec.subject = DistinguishedName(commonName: nil)
        let leaf = try factory.makeIdentity(spec, signedBy: root).certificate

        for platform in Platform.iOS {
            #expect(evaluate([leaf], DeviceTrustStore(system: [root.certificate]), platform: platform).failures.map(\.kind) == [.emptySubject])
        }
        #expect(
            evaluate([leaf], DeviceTrustStore(system: [root.certificate])).reason?.description
                == "'leaf' has an empty subject and its subjectAltName is not marked critical; iOS accepts an empty subject only on a leaf "
                + "whose subjectAltName is critical")
    }

    @Test func aRootWithoutBasicConstraintsIsNamedAsTheCertificateThatIsNotAnAuthority() throws {
        var spec = CertificateSpec.authority(label: "Root", commonName: "Root", notBefore: start, notAfter: end)
        spec.basicConstraints = nil
        let root = try factory.makeIdentity(spec)
        let leaf = try factory.makeIdentity(leafSpec(), signedBy: root).certificate

        let result = evaluate([leaf], DeviceTrustStore(system: [root.certificate]), policy: .basicX509)

        #expect(result.failures.map(\.kind) == [.issuerNotCA])
        #expect(result.reason?.certificate == root.certificate)
    }

    @Test func aCALeafUnderARootBuiltIntoIOSStillNeedsServerAuthButIsNoLongerRefusedForItsKeyUsage() throws {
        let root = try authority("Root")
        var spec = CertificateSpec.authority(label: "leaf", commonName: "bank.test", pathLength: 0, notBefore: start, notAfter: end)
        spec.dnsNames = ["bank.test"]
        let leaf = try factory.makeIdentity(spec, signedBy: root).certificate

        #expect(evaluate([leaf], DeviceTrustStore(system: [root.certificate])).failures.map(\.kind) == [.missingServerAuthEKU(anchor: .system)])
        #expect(evaluate([leaf], DeviceTrustStore(system: [root.certificate]), platform: .iOS12).isValid)
    }

    @Test func aLeafIsValidAtItsNotAfterSecondAndExpiredOneSecondLater() throws {
        let root = try authority("Root")
        var spec = leafSpec()
        spec.notAfter = clock
        let leaf = try factory.makeIdentity(spec, signedBy: root).certificate
        let store = DeviceTrustStore(system: [root.certificate])

        #expect(evaluate([leaf], store).isValid)
        #expect(evaluate([leaf], store, at: clock.addingTimeInterval(0.5)).failures.map(\.kind) == [.expired])
        #expect(evaluate([leaf], store, at: clock.addingTimeInterval(1)).failures.map(\.kind) == [.expired])
    }

    @Test func thePathBuilderReportsThePathThroughTheIntermediateThatIsNotConstrained() throws {
        let (chain, root, plain) = try twinIntermediatesChain()

        let result = evaluate(chain, DeviceTrustStore(system: [root.certificate]))

        #expect(result.isValid, "\(result.failures)")
        #expect(result.path == [chain[0], plain, root.certificate])
        #expect(result.anchorDescription == "'Root', a root built into iOS")
    }

    @Test func thePeerPlatformsKeepOpenSSLsAnswers() throws {
        let (chain, root, _) = try twinIntermediatesChain()
        let store = DeviceTrustStore(system: [root.certificate])
        var caSpec = CertificateSpec.authority(label: "leaf", commonName: "bank.test", notBefore: start, notAfter: end)
        caSpec.dnsNames = ["bank.test"]
        let caLeaf = try factory.makeIdentity(caSpec, signedBy: root).certificate
        var endingSpec = leafSpec()
        endingSpec.notAfter = clock
        let endingLeaf = try factory.makeIdentity(endingSpec, signedBy: root).certificate
        let dsaLeaf = try factory.issue(leafSpec(), key: try dsaKey(), signedBy: root)

        for platform in [Platform.android, .openSSL] {
            #expect(evaluate(chain, store, platform: platform).failures.map(\.kind) == [.nameConstraintViolation], "\(platform)")
            #expect(evaluate([caLeaf], store, platform: platform).failures.map(\.kind) == [.wrongExtendedKeyUsage], "\(platform)")
            #expect(evaluate([endingLeaf], store, platform: platform).failures.map(\.kind) == [.expired], "\(platform)")
            #expect(evaluate([dsaLeaf], store, platform: platform).isValid, "\(platform)")
        }
    }

    @Test func theSearchForAnotherPathIsBoundedHoweverManyCopiesOfAnIntermediateTheServerSends() throws {
        let root = try authority("Root")
        let key = try PrivateKey.generate()
        var spec = CertificateSpec.authority(label: "Intermediate", commonName: "Intermediate", notBefore: start, notAfter: end)
        spec.nameConstraints = NameConstraints(permittedDNSNames: ["shop.test"])
        let copies = try (0..<12).map { _ in try factory.issue(spec, key: key, signedBy: root) }
        let leaf = try factory.makeIdentity(leafSpec(), signedBy: Identity(certificate: copies[0], privateKey: key)).certificate
        let trust = ServerTrust(
            certificates: [leaf] + copies, deviceTrustStore: DeviceTrustStore(system: [root.certificate]), policy: .ssl(host: "bank.test"),
            verifyDate: clock)

        #expect(trust.anchoredPaths().count == 8)
        #expect(trust.anchoredPaths(budget: 4).count == 2, "two signatures checked per path: the copy's, then the root's")
        #expect(trust.evaluate().failures.map(\.kind) == [.nameConstraintViolation])
    }

    /// A leaf under an intermediate sent twice with one name and key: first constrained to `shop.test`, then not.
    func twinIntermediatesChain() throws -> (chain: [Certificate], root: Identity, plain: Certificate) {
        let root = try authority("Root")
        let key = try PrivateKey.generate()
        var spec = CertificateSpec.authority(label: "Intermediate", commonName: "Intermediate", notBefore: start, notAfter: end)
        let plain = try factory.issue(spec, key: key, signedBy: root)
        spec.nameConstraints = NameConstraints(permittedDNSNames: ["shop.test"])
        let constrained = try factory.issue(spec, key: key, signedBy: root)
        let leaf = try factory.makeIdentity(leafSpec(), signedBy: Identity(certificate: plain, privateKey: key)).certificate
        return ([leaf, constrained, plain], root, plain)
    }
}
