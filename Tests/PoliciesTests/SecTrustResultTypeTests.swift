import PKI
import Policies
import Testing

/// The `SecTrustResultType` a trace names beside each evaluation's verdict, and public-key mode's evaluation
/// of each certificate alone, whose result AFNetworking ignores.
struct SecTrustResultTypeTests {
    let world = BankWorld.shared

    func detail(_ check: TraceStep.Check, _ policy: SecurityPolicy, _ trust: ServerTrust, domain: String? = "bank.test") -> String {
        policy.evaluate(serverTrust: trust, forDomain: domain).steps.first { $0.check == check }?.detail ?? ""
    }

    // MARK: - The result beside the verdict

    @Test func theDefaultPolicyNamesUnspecifiedForAValidChainEndingAtARootBuiltIntoIOS() {
        #expect(
            detail(.chainTrust, .defaultPolicy, world.trust(world.realChain)).contains(
                "validates the chain (SecTrustEvaluate: kSecTrustResultUnspecified, which AFServerTrustIsValid accepts)"))
    }

    @Test func theDefaultPolicyNamesARecoverableFailureForAForgedChain() {
        #expect(
            detail(.chainTrust, .defaultPolicy, world.trust(world.forgedChain)).contains(
                "does not validate the chain (SecTrustEvaluate: kSecTrustResultRecoverableTrustFailure, which AFServerTrustIsValid refuses)"))
    }

    @Test func aForgeryFromARootTheUserInstalledAndFullyTrustedIsProceed() {
        #expect(
            detail(.chainTrust, .defaultPolicy, world.trust(world.forgedChain, attackerInstalled: true)).contains(
                "validates the chain (SecTrustEvaluate: kSecTrustResultProceed, which AFServerTrustIsValid accepts)"))
    }

    /// With anchors set, the user's trust store is no anchor source, so even that root ends an Unspecified path.
    @Test func pinningTheInstalledRootGivesUnspecifiedAndNamesAnchorCertificatesOnly() {
        let policy = SecurityPolicy.policy(withPinningMode: .certificate, pinnedCertificates: [world.attackerCA.certificate])
        let pinned = detail(.pinnedAnchors, policy, world.trust(world.forgedChain, attackerInstalled: true))
        #expect(pinned.contains("the only anchor (it turns SecTrustSetAnchorCertificatesOnly on)"))
        #expect(pinned.contains("trusted (SecTrustEvaluate: kSecTrustResultUnspecified, which AFServerTrustIsValid accepts)"))
    }

    @Test func theSystemsOwnEvaluationNamesItsResultToo() {
        let client = IOSClient(challengeHandler: .systemDefault)
        let tls13 = AppTransportSecurityTests.tls13
        let trusted = client.evaluate(serverTrust: world.trust(world.realChain), negotiated: tls13, host: "bank.test", domain: "bank.test")
        let forged = client.evaluate(serverTrust: world.trust(world.forgedChain), negotiated: tls13, host: "bank.test", domain: "bank.test")
        #expect(trusted.decidingStep?.detail.contains("trusts the chain (kSecTrustResultUnspecified)") == true)
        #expect(forged.decidingStep?.detail.contains("does not trust the chain (kSecTrustResultRecoverableTrustFailure)") == true)
    }

    // MARK: - TrustKit and Alamofire name it too

    @Test func trustKitsForcedSSLEvaluationNamesTheResultItComparesWithUnspecifiedAndProceed() throws {
        let pins = [world.leaf.certificate.publicKeySHA256Base64, TrustKitTests.backupPin]
        let configuration = try TrustKitConfiguration(pinnedDomains: ["bank.test": TrustKitTests.pinned(pins)])
        func chainValidation(_ chain: [Certificate], installed: Bool = false) -> String {
            TrustKitClient(configuration: configuration).evaluate(
                PresentedConnection(
                    serverTrust: world.trust(chain, attackerInstalled: installed), negotiated: AppTransportSecurityTests.tls13, host: "bank.test",
                    domain: "bank.test")
            ).steps.first { $0.check == .trustKitChainValidation }?.detail ?? ""
        }
        #expect(chainValidation(world.realChain).contains("trusts the chain (SecTrustEvaluate: kSecTrustResultUnspecified): path"))
        #expect(chainValidation(world.forgedChain, installed: true).contains("trusts the chain (SecTrustEvaluate: kSecTrustResultProceed): path"))
        #expect(
            chainValidation(world.forgedChain).contains(
                "which does not trust it (SecTrustEvaluate: kSecTrustResultRecoverableTrustFailure, neither kSecTrustResultUnspecified nor "
                    + "kSecTrustResultProceed)"))
    }

    @Test func alamofire4sTrustIsValidNamesTheResultTypeBesideItsVerdict() {
        let client = Alamofire4Client(
            serverTrustPolicyManager: ServerTrustPolicyManager(policies: ["bank.test": .performDefaultEvaluation(validateHost: true)]))
        func detail(_ chain: AlamofireWorld.Chain) -> String {
            client.evaluate(AlamofireWorld.shared.connection(chain)).steps.first { $0.check == .alamofire4TrustEvaluation }?.detail ?? ""
        }
        #expect(detail(.real).contains(": trusted (kSecTrustResultUnspecified): path"))
        #expect(detail(.forgedUserCA).contains(": trusted (kSecTrustResultProceed): path"))
        #expect(detail(.forged).contains(": not trusted (kSecTrustResultRecoverableTrustFailure) because"))
    }

    @Test func alamofire5sPinnedAnchorsMakeAnInstalledRootUnspecifiedAndItsDefaultHandlingNamesTheSystemsResult() {
        let pinned = Alamofire5Client(
            serverTrustManager: ServerTrustManager(evaluators: [
                "bank.test": .pinnedCertificates(
                    certificates: [AlamofireWorld.shared.bank.attackerCA.certificate], acceptSelfSignedCertificates: true,
                    performDefaultValidation: true, validateHost: true)
            ]))
        let steps = pinned.evaluate(AlamofireWorld.shared.connection(.forgedUserCA)).steps
        #expect(steps.contains { $0.detail.contains("trusted (kSecTrustResultUnspecified): path") }, "\(steps)")
        let unlisted = Alamofire5Client(serverTrustManager: nil).evaluate(AlamofireWorld.shared.connection(.forged))
        #expect(unlisted.decidingStep?.detail.contains("does not trust the chain (kSecTrustResultRecoverableTrustFailure):") == true, "\(unlisted.steps)")
    }

    /// Apple's checks of type F: no change of anchors, date or policy recovers from them; SHA-1 is recoverable.
    @Test(arguments: [
        (TrustFailure.Kind.weakSignatureDigest(digest: "MD5"), ServerTrust.ResultType.fatalTrustFailure),
        (.weakKey(forTLS: false), .fatalTrustFailure),
        (.weakSignatureDigest(digest: "SHA-1"), .recoverableTrustFailure),
        (.weakKey(forTLS: true), .recoverableTrustFailure),
    ])
    func onlyABannedKeyOrDigestIsAFatalFailure(_ kind: TrustFailure.Kind, _ expected: ServerTrust.ResultType) {
        let failure = TrustFailure(kind: kind, certificate: world.leaf.certificate)
        let result = TrustResult(path: world.realChain, failures: [failure, TrustFailure(kind: .expired, certificate: world.leaf.certificate)], anchor: nil)
        #expect(ServerTrust.ResultType(result, anchorsOnly: false) == expected)
    }

    // MARK: - Public-key mode evaluates each certificate alone and ignores the result

    @Test(arguments: AFNetworkingVersion.allCases)
    func publicKeyModeNamesEachCertificatesIgnoredEvaluationInEveryRelease(_ version: AFNetworkingVersion) {
        let policy = SecurityPolicy(version: version, SSLPinningMode: .publicKey, pinnedCertificates: [world.leaf.certificate])
        #expect(
            detail(.pinnedAnchors, policy, world.trust(world.realChain)).hasSuffix(
                "To read the keys, AFPublicKeyTrustChainForServerTrust evaluates each certificate of the path alone (a trust of its own, "
                    + "BasicX509 policy, SecTrustEvaluate) and ignores the result ('bank.test': kSecTrustResultRecoverableTrustFailure, "
                    + "'Bank Intermediate': kSecTrustResultUnspecified, 'Bank Root': kSecTrustResultUnspecified): SecTrustCopyPublicKey "
                    + "reads each key whatever the result, an untrusted self-signed certificate's included"))
    }

    /// The question the articles leave open: the key of a self-signed certificate no anchor validates is still read.
    @Test func aSelfSignedPinnedLeafFailsItsOwnEvaluationYetItsKeyIsReadAndMatched() throws {
        let selfSigned = try world.factory.forge(impersonating: world.leaf.certificate, signedBy: nil).certificate
        let policy = SecurityPolicy(SSLPinningMode: .publicKey, allowInvalidCertificates: true, pinnedCertificates: [selfSigned])
        let evaluation = policy.evaluate(serverTrust: world.trust([selfSigned]), forDomain: "bank.test")
        #expect(evaluation.isTrusted)
        #expect(
            evaluation.steps.first { $0.check == .pinnedAnchors }?.detail.contains(
                "ignores the result ('\(selfSigned.label)': kSecTrustResultRecoverableTrustFailure)") == true)
    }
}
