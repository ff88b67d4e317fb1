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
