import PKI
import Policies
import Testing

/// The complete trace, step by step, for the situations lessons are built on.
struct WholeTraceTests {
    let world = BankWorld.shared

    func steps(_ policy: SecurityPolicy, _ trust: ServerTrust, _ domain: String?) -> [TraceStep] {
        policy.evaluate(serverTrust: trust, forDomain: domain).steps
    }

    @Test func theDefaultPolicyRejectsAForgeryFromACATheDeviceDoesNotTrust() {
        #expect(
            steps(.defaultPolicy, world.trust(world.forgedChain), "bank.test") == [
                TraceStep(.domainGuard, .passed, "allowInvalidCertificates is NO, so the settings are not contradictory"),
                TraceStep(.policySelection, .note, "validatesDomainName is YES: SSL policy for host 'bank.test', which the leaf must name in its SAN"),
                TraceStep(
                    .chainTrust, .failed,
                    "the device trust store does not validate the chain (SecTrustEvaluate: kSecTrustResultRecoverableTrustFailure, which "
                        + "AFServerTrustIsValid refuses): 'Attacker CA' is self-signed and is not among the trust anchors"),
            ])
    }

    @Test func certificatePinningRejectsAForgeryFromAnInstalledAttackerCA() {
        let policy = SecurityPolicy.policy(withPinningMode: .certificate, pinnedCertificates: [world.leaf.certificate])
        #expect(
            steps(policy, world.trust(world.forgedChain, attackerInstalled: true), "bank.test") == [
                TraceStep(.domainGuard, .passed, "allowInvalidCertificates is NO, so the settings are not contradictory"),
                TraceStep(.policySelection, .note, "validatesDomainName is YES: SSL policy for host 'bank.test', which the leaf must name in its SAN"),
                TraceStep(
                    .chainTrust, .passed,
                    "the device trust store validates the chain (SecTrustEvaluate: kSecTrustResultProceed, which AFServerTrustIsValid accepts): "
                        + "path 'forged bank.test' -> 'Attacker CA', "
                        + "ending at 'Attacker CA', a root the user installed and fully trusted"),
                TraceStep(
                    .pinnedAnchors, .failed,
                    "SecTrustSetAnchorCertificates makes the pinned certificate 'bank.test' the only anchor (it turns "
                        + "SecTrustSetAnchorCertificatesOnly on) and the chain is re-evaluated: not trusted (SecTrustEvaluate: kSecTrustResultRecoverableTrustFailure, which "
                        + "AFServerTrustIsValid refuses) because "
                        + "'Attacker CA' is self-signed and is not among the trust anchors"),
            ])
    }

    @Test func certificatePinningAcceptsTheRealChainAndSaysWhichCertificateMatched() {
        let policy = SecurityPolicy.policy(withPinningMode: .certificate, pinnedCertificates: [world.root.certificate])
        #expect(
            steps(policy, world.trust(world.realChain), "www.bank.test").suffix(2) == [
                TraceStep(
                    .pinnedAnchors, .passed,
                    "SecTrustSetAnchorCertificates makes the pinned certificate 'Bank Root' the only anchor (it turns "
                        + "SecTrustSetAnchorCertificatesOnly on) and the chain is re-evaluated: trusted (SecTrustEvaluate: kSecTrustResultUnspecified, which AFServerTrustIsValid "
                        + "accepts), path 'bank.test' -> 'Bank Intermediate' -> 'Bank Root', "
                        + "ending at 'Bank Root', a root built into iOS"),
                TraceStep(
                    .pinnedCertificateMatch, .passed,
                    "'Bank Root' in the path 'bank.test' -> 'Bank Intermediate' -> 'Bank Root' is byte for byte a pinned certificate"),
            ])
    }

    @Test func allowingInvalidCertificatesWithoutCheckingTheDomainAcceptsASelfSignedForgery() throws {
        let selfSigned = try world.factory.makeIdentity(
            .serverLeaf(
                label: "self-signed bank.test", dnsNames: ["bank.test"], notBefore: world.leaf.certificate.notBefore, notAfter: world.leaf.certificate.notAfter)
        )
        let policy = SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false)
        #expect(
            steps(policy, world.trust([selfSigned.certificate]), "bank.test") == [
                TraceStep(.domainGuard, .passed, "validatesDomainName is NO, so the settings are not contradictory"),
                TraceStep(
                    .policySelection, .note,
                    "validatesDomainName is NO: BasicX509 policy, the host name is never checked. "
                        + "But allowInvalidCertificates is YES in mode none, so no chain is evaluated with it"),
                TraceStep(
                    .allowInvalidOverride, .passed,
                    "allowInvalidCertificates is YES and the pinning mode is none: the chain is accepted without being evaluated"),
            ])
    }

    @Test func contradictorySettingsStopBeforeAnythingIsEvaluated() {
        let policy = SecurityPolicy(SSLPinningMode: .certificate, allowInvalidCertificates: true)
        let evaluation = policy.evaluate(serverTrust: world.trust(world.realChain), forDomain: "bank.test")
        #expect(
            evaluation.steps == [
                TraceStep(
                    .domainGuard, .failed,
                    "In order to validate a domain name for self signed certificates, you MUST use pinning. (domain 'bank.test', "
                        + "allowInvalidCertificates YES, validatesDomainName YES, and no certificates are pinned)")
            ])
        #expect(evaluation.path.isEmpty)
    }

    @Test func publicKeyPinningWithInvalidCertificatesAllowedSaysNothingElseIsChecked() {
        let policy = SecurityPolicy(SSLPinningMode: .publicKey, allowInvalidCertificates: true, pinnedCertificates: [world.intermediate.certificate])
        #expect(
            steps(policy, world.trust(world.realChain), nil) == [
                TraceStep(.domainGuard, .passed, "the domain is nil, so the contradictory-settings rule does not apply"),
                TraceStep(
                    .policySelection, .note,
                    "validatesDomainName is YES but the domain is nil: SSL policy without a host name, so no host name is checked. "
                        + "But with allowInvalidCertificates YES in public-key mode, only the path that evaluating with it builds is used, never its verdict"),
                TraceStep(
                    .allowInvalidOverride, .note,
                    "allowInvalidCertificates is YES: the device trust store's verdict is not used, pinning alone decides"),
                TraceStep(
                    .pinnedAnchors, .skipped,
                    "public-key pinning sets no anchors and uses no evaluation's verdict, so nothing checks that the chain ends at a trusted root, "
                        + "its dates or its host name (only the signatures linking the path are checked). To read the keys, "
                        + "AFPublicKeyTrustChainForServerTrust evaluates each certificate of the path alone (a trust of its own, BasicX509 policy, "
                        + "SecTrustEvaluate) and ignores the result ('bank.test': kSecTrustResultRecoverableTrustFailure, 'Bank Intermediate': "
                        + "kSecTrustResultUnspecified, 'Bank Root': kSecTrustResultUnspecified): SecTrustCopyPublicKey reads each key whatever "
                        + "the result, an untrusted self-signed certificate's included"),
                TraceStep(
                    .pinnedPublicKeyMatch, .passed,
                    "'Bank Intermediate' has the key of pinned 'Bank Intermediate' (path 'bank.test' -> 'Bank Intermediate' -> 'Bank Root')"),
            ])
    }

    /// Lesson 11: the SSL policy names the host, yet a leaf for another host passes, so the note must not say the leaf has to name it.
    @Test func publicKeyPinningWithInvalidCertificatesAllowedSaysTheHostPolicyIsNotUsed() {
        let policy = SecurityPolicy(SSLPinningMode: .publicKey, allowInvalidCertificates: true, pinnedCertificates: [world.leaf.certificate])
        let evaluation = policy.evaluate(serverTrust: world.trust(world.realChain), forDomain: "elsewhere.test")
        #expect(evaluation.isTrusted)
        #expect(
            evaluation.steps.first { $0.check == .policySelection }
                == TraceStep(
                    .policySelection, .note,
                    "validatesDomainName is YES: SSL policy for host 'elsewhere.test'. But with allowInvalidCertificates YES in public-key mode, "
                        + "only the path that evaluating with it builds is used, never its verdict, so the host name is not checked"))
    }

    /// Wherever the step-2 evaluation decides (certificate mode, or allowInvalidCertificates NO), the host must be in the SAN.
    @Test(arguments: [(SSLPinningMode.none, false), (.publicKey, false), (.certificate, false), (.certificate, true)])
    func theHostPolicyNoteSaysTheLeafMustNameTheHostWhenAnEvaluationUsesIt(_ mode: SSLPinningMode, _ allowInvalid: Bool) {
        let policy = SecurityPolicy(SSLPinningMode: mode, allowInvalidCertificates: allowInvalid, pinnedCertificates: [world.leaf.certificate])
        let evaluation = policy.evaluate(serverTrust: world.trust(world.realChain), forDomain: "elsewhere.test")
        #expect(!evaluation.isTrusted)
        #expect(
            evaluation.steps.first { $0.check == .policySelection }
                == TraceStep(.policySelection, .note, "validatesDomainName is YES: SSL policy for host 'elsewhere.test', which the leaf must name in its SAN"))
    }
}
