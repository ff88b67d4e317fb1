import Foundation
import PKI
import Policies
import Testing

/// Alamofire 4's `ServerTrustPolicy` on real generated chains: verdict, deciding step and reason for each
/// documented behaviour (reference §4) and each attack of the matrix.
struct Alamofire4ClientTests {
    typealias Chain = AlamofireWorld.Chain
    typealias Pin = AlamofireWorld.Pin
    static let world = AlamofireWorld.shared

    /// A policy as a test writes it, pins by name.
    enum Policy: Sendable, CustomStringConvertible {
        case defaultEvaluation(validateHost: Bool)
        case revoked(validateHost: Bool, RevocationOptions)
        case certificates([Pin], chain: Bool, host: Bool = true)
        case keys([Pin], chain: Bool, host: Bool = true)
        case disable

        var value: ServerTrustPolicy {
            switch self {
            case .defaultEvaluation(let validateHost): .performDefaultEvaluation(validateHost: validateHost)
            case .revoked(let validateHost, let flags): .performRevokedEvaluation(validateHost: validateHost, revocationFlags: flags)
            case .certificates(let pins, let chain, let host):
                .pinCertificates(certificates: world.pins(pins), validateCertificateChain: chain, validateHost: host)
            case .keys(let pins, let chain, let host): .pinPublicKeys(publicKeys: world.pins(pins), validateCertificateChain: chain, validateHost: host)
            case .disable: .disableEvaluation
            }
        }

        var description: String { value.description }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let policy: Policy?
        let chain: Chain
        let trusted: Bool
        let deciding: TraceStep.Check
        let reason: String?

        init(_ policy: Policy?, _ chain: Chain, _ trusted: Bool, _ deciding: TraceStep.Check, _ reason: String? = nil) {
            (self.policy, self.chain, self.trusted, self.deciding, self.reason) = (policy, chain, trusted, deciding, reason)
        }

        var testDescription: String {
            "\(policy.map(\.description) ?? "no ServerTrustPolicyManager") on \(chain.rawValue) → \(trusted ? "trusted" : "refused") at \(deciding.rawValue)"
        }
    }

    static let cases: [Case] = [
        Case(nil, .real, true, .systemTrust),
        Case(nil, .forged, false, .systemTrust, "untrustedRoot"),

        // .performDefaultEvaluation: one evaluation, the host name only when asked.
        Case(.defaultEvaluation(validateHost: true), .real, true, .alamofire4TrustEvaluation),
        Case(.defaultEvaluation(validateHost: true), .forged, false, .alamofire4TrustEvaluation, "untrustedRoot"),
        Case(.defaultEvaluation(validateHost: true), .forgedUserCA, true, .alamofire4TrustEvaluation),
        Case(.defaultEvaluation(validateHost: true), .wrongHost, false, .alamofire4TrustEvaluation, "hostnameMismatch"),
        Case(.defaultEvaluation(validateHost: false), .wrongHost, true, .alamofire4TrustEvaluation),
        Case(.defaultEvaluation(validateHost: true), .expired, false, .alamofire4TrustEvaluation, "expired"),

        // .performRevokedEvaluation: no responder, so the status is unknown.
        Case(.revoked(validateHost: true, .any), .real, true, .alamofire4TrustEvaluation),
        Case(.revoked(validateHost: true, [.ocsp, .requirePositiveResponse]), .real, false, .alamofire4TrustEvaluation, "revocationCheckFailed"),
        Case(.revoked(validateHost: true, .any), .wrongHost, false, .alamofire4TrustEvaluation, "hostnameMismatch"),

        // .pinCertificates with chain validation: the pins are the only anchors, nothing is compared.
        Case(.certificates([.leaf], chain: true), .real, true, .alamofire4TrustEvaluation),
        Case(.certificates([.leaf], chain: true), .forgedUserCA, false, .alamofire4TrustEvaluation, "untrustedRoot"),
        Case(.certificates([.leaf], chain: true), .appendedPinned, false, .alamofire4TrustEvaluation, "untrustedRoot"),
        Case(.certificates([.root], chain: true), .misIssued, true, .alamofire4TrustEvaluation),
        Case(.certificates([.intermediate], chain: true), .expired, false, .alamofire4TrustEvaluation, "expired"),
        Case(.certificates([.intermediate], chain: true), .wrongHost, false, .alamofire4TrustEvaluation, "hostnameMismatch"),
        Case(.certificates([.intermediate], chain: true, host: false), .wrongHost, true, .alamofire4TrustEvaluation),
        Case(.certificates([], chain: true), .real, false, .alamofire4TrustEvaluation, "missingIssuer"),

        // .pinCertificates without chain validation: a byte match over the chain the trust builds, nothing else.
        Case(.certificates([.leaf], chain: false), .real, true, .alamofire4CertificatePinning),
        Case(.certificates([.leaf], chain: false), .appendedPinned, false, .alamofire4CertificatePinning, "pinnedCertificateNotInPath"),
        Case(.certificates([.leaf], chain: false), .appendedPinnedUntrusted, false, .alamofire4CertificatePinning, "pinnedCertificateNotInPath"),
        Case(.certificates([.intermediate], chain: false), .expired, true, .alamofire4CertificatePinning),
        Case(.certificates([.intermediate], chain: false), .wrongHost, true, .alamofire4CertificatePinning),
        Case(.certificates([.root], chain: false), .misIssued, true, .alamofire4CertificatePinning),
        Case(.certificates([.leaf], chain: false), .forged, false, .alamofire4CertificatePinning, "pinnedCertificateNotInPath"),

        // .pinPublicKeys.
        Case(.keys([.leaf], chain: true), .real, true, .alamofire4PublicKeyPinning),
        Case(.keys([.leaf], chain: true), .forged, false, .alamofire4TrustEvaluation, "untrustedRoot"),
        Case(.keys([.leaf], chain: true), .forgedUserCA, false, .alamofire4PublicKeyPinning, "pinnedPublicKeyNotInPath"),
        Case(.keys([.leaf], chain: true), .appendedPinned, false, .alamofire4PublicKeyPinning, "pinnedPublicKeyNotInPath"),
        Case(.keys([.leaf], chain: true), .expired, false, .alamofire4TrustEvaluation, "expired"),
        Case(.keys([.leaf], chain: false), .expired, true, .alamofire4PublicKeyPinning),
        Case(.keys([.leaf], chain: true), .wrongHost, false, .alamofire4TrustEvaluation, "hostnameMismatch"),
        Case(.keys([.root], chain: true), .misIssued, true, .alamofire4PublicKeyPinning),
        Case(.keys([], chain: true), .real, false, .alamofire4PublicKeyPinning, "pinnedPublicKeyNotInPath"),

        Case(.disable, .forged, true, .alamofire4DisabledEvaluation),
    ]

    static func client(_ policy: Policy?) -> Alamofire4Client {
        Alamofire4Client(serverTrustPolicyManager: policy.map { ServerTrustPolicyManager(policies: ["bank.test": $0.value]) })
    }

    @Test("each policy's documented behaviour and each attack has its verdict, deciding step and reason", arguments: cases)
    func documentedBehaviour(_ test: Case) {
        let evaluation = Self.client(test.policy).evaluate(Self.world.connection(test.chain))
        #expect(evaluation.isTrusted == test.trusted)
        #expect(evaluation.decidingStep?.check == test.deciding)
        #expect(evaluation.rejection?.code == test.reason)
        #expect(evaluation.urlError == (test.trusted ? nil : test.policy == nil ? .serverCertificateUntrusted : .cancelled))
    }

    @Test("certificate pinning with chain validation compares no bytes: the pins only become the anchors")
    func pinnedAnchorsTrace() {
        let evaluation = Self.client(.certificates([.leaf], chain: true)).evaluate(Self.world.connection(.real))
        #expect(
            evaluation.steps == [
                TraceStep(
                    .alamofire4PolicyLookup, .note,
                    "ServerTrustPolicyManager has a policy for exactly 'bank.test': "
                        + ".pinCertificates(certificates: ['bank.test'], validateCertificateChain: true, validateHost: true)"),
                TraceStep(
                    .alamofire4TrustEvaluation, .passed,
                    "trustIsValid evaluates with SecPolicyCreateSSL(true, \"bank.test\") with the pinned 'bank.test' as the only anchors "
                        + "(SecTrustSetAnchorCertificatesOnly); no certificate is compared byte for byte: trusted (kSecTrustResultUnspecified): path 'bank.test', "
                        + "ending at 'bank.test', an app anchor (SecTrustSetAnchorCertificates, as pinning sets it)"),
                TraceStep(.challengeDisposition, .note, "the evaluation passed: SessionDelegate answers useCredential with URLCredential(trust:)"),
            ])
    }

    @Test("a refused chain fails the request with URLSession's cancellation, as Alamofire 4 has no error of its own")
    func cancellation() {
        let evaluation = Self.client(.keys([.leaf], chain: true)).evaluate(Self.world.connection(.forgedUserCA))
        #expect(
            evaluation.steps.last
                == TraceStep(
                    .challengeDisposition, .note,
                    "SessionDelegate answers cancelAuthenticationChallenge; Alamofire 4 has no error of its own, so the request fails with "
                        + "URLSession's NSURLError -999 NSURLErrorCancelled"))
    }

    @Test("a host without a policy is left to the system, which a user-installed CA satisfies")
    func unlistedHost() {
        let evaluation = Self.client(.disable).evaluate(Self.world.connection(.forgedUserCA, host: "www.bank.test"))
        #expect(
            evaluation.steps.first
                == TraceStep(
                    .alamofire4PolicyLookup, .note,
                    "ServerTrustPolicyManager has no policy for 'www.bank.test' (hosts match exactly), so SessionDelegate leaves the disposition at "
                        + "performDefaultHandling"))
        #expect(evaluation.isTrusted && evaluation.decidingStep?.check == .systemTrust)
    }

    @Test("disabling evaluation accepts a forgery, with a note that ATS would refuse it on a device")
    func disabledEvaluationNotesATS() {
        let evaluation = Self.client(.disable).evaluate(Self.world.connection(.forged))
        #expect(
            evaluation.steps.map(\.check) == [.alamofire4PolicyLookup, .alamofire4DisabledEvaluation, .challengeDisposition, .alamofireAppTransportSecurity])
    }
}
