import PKI
import Policies
import Testing

/// AFNetworking 3.x as it shipped: 3.0.0–3.0.4 answer a NO with RejectProtectionSpace, 3.1.0–3.2.1 cancel
/// with -999, and both evaluate the chain before reading allowInvalidCertificates.
struct AFNetworking3Tests {
    let world = BankWorld.shared

    func client(_ version: AFNetworkingVersion, _ mode: SSLPinningMode, allowInvalid: Bool = false) -> IOSClient {
        IOSClient(
            policy: SecurityPolicy(
                version: version, SSLPinningMode: mode, allowInvalidCertificates: allowInvalid, pinnedCertificates: [world.leaf.certificate]))
    }

    func evaluate(_ client: IOSClient, attackerInstalled: Bool) -> PolicyEvaluation {
        client.evaluate(
            serverTrust: world.trust(world.forgedChain, attackerInstalled: attackerInstalled), negotiated: IOSClientTests.tls13, host: "bank.test",
            domain: "bank.test")
    }

    func disposition(_ evaluation: PolicyEvaluation) -> String? {
        evaluation.steps.first { $0.check == .challengeDisposition }?.detail
    }

    @Test func afNetworking3_0LetsAForgeryTheDeviceTrustsThroughAFailedPublicKeyPin() {
        let evaluation = evaluate(client(.v3_0, .publicKey), attackerInstalled: true)
        #expect(evaluation.steps.contains { $0.check == .pinnedPublicKeyMatch && $0.outcome == .failed })
        #expect(disposition(evaluation)?.contains("RejectProtectionSpace") == true)
        #expect(evaluation.isTrusted && evaluation.urlError == nil)
        #expect(evaluation.decidingStep?.check == .systemTrust)
    }

    @Test func afNetworking3_0StillFailsWithServerCertificateUntrustedWhenTheDeviceDoesNotTrustTheForgery() {
        let evaluation = evaluate(client(.v3_0, .publicKey), attackerInstalled: false)
        #expect(evaluation.decidingStep?.check == .systemTrust)
        #expect(evaluation.rejection?.code == "untrustedRoot")
        #expect(evaluation.urlError == .serverCertificateUntrusted)
    }

    @Test func afNetworking3_0sCertificatePinStaysTheTrustsOnlyAnchorSoTheForgeryFails() {
        let evaluation = evaluate(client(.v3_0, .certificate), attackerInstalled: true)
        #expect(evaluation.decidingStep?.check == .systemTrust)
        #expect(evaluation.decidingStep?.detail.contains("the pinned certificates as its only anchors") == true)
        #expect(!evaluation.isTrusted && evaluation.urlError == .serverCertificateUntrusted)
    }

    @Test func afNetworking3_1CancelsTheChallengeWithNSURLErrorCancelled() {
        let evaluation = evaluate(client(.v3_1, .publicKey), attackerInstalled: true)
        #expect(evaluation.decidingStep?.check == .pinnedPublicKeyMatch)
        #expect(evaluation.urlError == .cancelled)
        #expect(disposition(evaluation) == "the policy said NO: CancelAuthenticationChallenge; the task fails with NSURLError -999 NSURLErrorCancelled")
    }

    @Test func afNetworking3EvaluatesTheChainBeforeReadingAllowInvalidCertificatesAnd4DoesNot() {
        let three = evaluate(client(.v3_1, .publicKey, allowInvalid: true), attackerInstalled: false)
        let override = three.steps.first { $0.check == .allowInvalidOverride }
        #expect(override?.outcome == .note)
        #expect(
            override?.detail.hasPrefix(
                "AFNetworking 3.1 evaluates the chain before it reads allowInvalidCertificates: the device trust store does not validate it")
                == true)
        let four = evaluate(client(.v4, .publicKey, allowInvalid: true), attackerInstalled: false)
        #expect(
            four.steps.first { $0.check == .allowInvalidOverride }?.detail.hasPrefix("allowInvalidCertificates is YES: the device trust store's verdict")
                == true)
        #expect(three.isTrusted == four.isTrusted)
    }

    @Test func afNetworking3sCertificateModeReEvaluatesWithThePinnedAnchorsAfterTheIgnoredEvaluation() {
        let anchors = { (version: AFNetworkingVersion) in
            evaluate(client(version, .certificate, allowInvalid: true), attackerInstalled: false).steps.first { $0.check == .pinnedAnchors }?.detail
        }
        #expect(anchors(.v3_0)?.contains("the only anchor (it turns SecTrustSetAnchorCertificatesOnly on) and the chain is re-evaluated") == true)
        #expect(anchors(.v4)?.contains("the only anchor (it turns SecTrustSetAnchorCertificatesOnly on) and the chain is evaluated") == true)
    }
}
