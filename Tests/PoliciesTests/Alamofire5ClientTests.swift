import Foundation
import PKI
import Policies
import Testing

/// Alamofire 5's `ServerTrustManager` and evaluators on real generated chains: verdict, deciding step and
/// reason for each documented behaviour (reference §4) and each attack of the matrix.
struct Alamofire5ClientTests {
    typealias Chain = AlamofireWorld.Chain
    typealias Pin = AlamofireWorld.Pin
    static let world = AlamofireWorld.shared

    /// An evaluator as a test writes it, pins by name, so the table reads without certificates.
    enum Evaluator: Sendable, CustomStringConvertible {
        case defaultTrust(validateHost: Bool = true)
        case revocation(pdv: Bool = true, vh: Bool = true, RevocationOptions = .any)
        case pinned([Pin], selfSigned: Bool = false, pdv: Bool = true, vh: Bool = true)
        case keys([Pin], pdv: Bool = true, vh: Bool = true)
        case composite([Evaluator])
        case disabled

        var value: ServerTrustEvaluator {
            switch self {
            case .defaultTrust(let validateHost): .defaultTrust(validateHost: validateHost)
            case .revocation(let pdv, let vh, let options): .revocationChecking(performDefaultValidation: pdv, validateHost: vh, options: options)
            case .pinned(let pins, let selfSigned, let pdv, let vh):
                .pinnedCertificates(
                    certificates: world.pins(pins), acceptSelfSignedCertificates: selfSigned, performDefaultValidation: pdv, validateHost: vh)
            case .keys(let pins, let pdv, let vh): .publicKeys(keys: world.pins(pins), performDefaultValidation: pdv, validateHost: vh)
            case .composite(let evaluators): .composite(evaluators: evaluators.map(\.value))
            case .disabled: .disabled
            }
        }

        var description: String { value.description }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let evaluator: Evaluator?
        let chain: Chain
        let trusted: Bool
        let deciding: TraceStep.Check
        let reason: String?

        init(_ evaluator: Evaluator?, _ chain: Chain, _ trusted: Bool, _ deciding: TraceStep.Check, _ reason: String? = nil) {
            (self.evaluator, self.chain, self.trusted, self.deciding, self.reason) = (evaluator, chain, trusted, deciding, reason)
        }

        var testDescription: String {
            "\(evaluator.map(\.description) ?? "no ServerTrustManager") on \(chain.rawValue) → \(trusted ? "trusted" : "refused") at \(deciding.rawValue)"
        }
    }

    static let cases: [Case] = [
        // No ServerTrustManager: URLSession's default handling.
        Case(nil, .real, true, .systemTrust),
        Case(nil, .forged, false, .systemTrust, "untrustedRoot"),
        Case(nil, .forgedUserCA, true, .systemTrust),

        // DefaultTrustEvaluator: host validation (the whole chain), then default validation.
        Case(.defaultTrust(), .real, true, .alamofireDefaultValidation),
        Case(.defaultTrust(), .forged, false, .alamofireHostValidation, "untrustedRoot"),
        Case(.defaultTrust(), .forgedUserCA, true, .alamofireDefaultValidation),
        Case(.defaultTrust(), .wrongHost, false, .alamofireHostValidation, "hostnameMismatch"),
        Case(.defaultTrust(validateHost: false), .wrongHost, true, .alamofireDefaultValidation),
        Case(.defaultTrust(), .expired, false, .alamofireHostValidation, "expired"),
        Case(.defaultTrust(), .misIssued, true, .alamofireDefaultValidation),

        // RevocationTrustEvaluator: no responder, so the status is unknown.
        Case(.revocation(), .real, true, .alamofireRevocationCheck),
        Case(.revocation(.any.union(.requirePositiveResponse)), .real, false, .alamofireRevocationCheck, "revocationCheckFailed"),
        Case(.revocation(), .forged, false, .alamofireDefaultValidation, "untrustedRoot"),
        Case(.revocation(pdv: false, vh: false), .wrongHost, true, .alamofireRevocationCheck),
        Case(.revocation(pdv: false, vh: false), .forged, false, .alamofireRevocationCheck, "untrustedRoot"),

        // PinnedCertificatesTrustEvaluator.
        Case(.pinned([.leaf]), .real, true, .alamofireCertificatePinning),
        Case(.pinned([.leaf]), .forged, false, .alamofireDefaultValidation, "untrustedRoot"),
        Case(.pinned([.leaf]), .forgedUserCA, false, .alamofireCertificatePinning, "pinnedCertificateNotInPath"),
        Case(.pinned([.leaf]), .appendedPinned, false, .alamofireCertificatePinning, "pinnedCertificateNotInPath"),
        Case(.pinned([.leaf], pdv: false, vh: false), .appendedPinnedUntrusted, false, .alamofireCertificatePinning, "pinnedCertificateNotInPath"),
        Case(.pinned([.root]), .misIssued, true, .alamofireCertificatePinning),
        Case(.pinned([.intermediate]), .misIssued, true, .alamofireCertificatePinning),
        Case(.pinned([.leaf]), .misIssued, false, .alamofireCertificatePinning, "pinnedCertificateNotInPath"),
        Case(.pinned([.intermediate]), .expired, false, .alamofireDefaultValidation, "expired"),
        // validateHost alone still evaluates the whole chain; only both off leave a bare pin match.
        Case(.pinned([.intermediate], pdv: false), .expired, false, .alamofireHostValidation, "expired"),
        Case(.pinned([.intermediate], pdv: false, vh: false), .expired, true, .alamofireCertificatePinning),
        Case(.pinned([.intermediate], vh: false), .wrongHost, true, .alamofireCertificatePinning),
        Case(.pinned([.intermediate]), .wrongHost, false, .alamofireHostValidation, "hostnameMismatch"),
        Case(.pinned([]), .real, false, .alamofirePinsPresent, "noCertificatesFound"),
        Case(.pinned([.selfSigned]), .selfSigned, false, .alamofireDefaultValidation, "untrustedRoot"),
        Case(.pinned([.selfSigned], selfSigned: true), .selfSigned, true, .alamofireCertificatePinning),
        // acceptSelfSignedCertificates drops the device's roots, the user-installed attacker CA with them.
        Case(.pinned([.leaf], selfSigned: true), .forgedUserCA, false, .alamofireDefaultValidation, "untrustedRoot"),
        Case(.pinned([.leaf], selfSigned: true), .real, true, .alamofireCertificatePinning),

        // PublicKeysTrustEvaluator.
        Case(.keys([.leaf]), .real, true, .alamofirePublicKeyPinning),
        Case(.keys([.leaf]), .forged, false, .alamofireDefaultValidation, "untrustedRoot"),
        Case(.keys([.leaf]), .forgedUserCA, false, .alamofirePublicKeyPinning, "pinnedPublicKeyNotInPath"),
        Case(.keys([.leaf]), .appendedPinned, false, .alamofirePublicKeyPinning, "pinnedPublicKeyNotInPath"),
        Case(.keys([.root]), .misIssued, true, .alamofirePublicKeyPinning),
        Case(.keys([.leaf]), .expired, false, .alamofireDefaultValidation, "expired"),
        Case(.keys([.leaf], pdv: false, vh: false), .expired, true, .alamofirePublicKeyPinning),
        Case(.keys([.leaf]), .wrongHost, false, .alamofireHostValidation, "hostnameMismatch"),
        Case(.keys([]), .real, false, .alamofirePinsPresent, "noPublicKeysFound"),

        // CompositeTrustEvaluator and DisabledTrustEvaluator.
        Case(.composite([.defaultTrust(), .pinned([.leaf])]), .forgedUserCA, false, .alamofireCertificatePinning, "pinnedCertificateNotInPath"),
        Case(.composite([.defaultTrust(), .keys([.leaf])]), .real, true, .alamofirePublicKeyPinning),
        Case(.composite([.revocation(), .defaultTrust()]), .wrongHost, false, .alamofireHostValidation, "hostnameMismatch"),
        Case(.composite([]), .forged, true, .alamofireEvaluator),
        Case(.disabled, .forged, true, .alamofireDisabledEvaluation),
        Case(.disabled, .expired, true, .alamofireDisabledEvaluation),
    ]

    static func client(_ evaluator: Evaluator?) -> Alamofire5Client {
        Alamofire5Client(serverTrustManager: evaluator.map { ServerTrustManager(evaluators: ["bank.test": $0.value]) })
    }

    @Test("each evaluator's documented behaviour and each attack has its verdict, deciding step and reason", arguments: cases)
    func documentedBehaviour(_ test: Case) {
        let evaluation = Self.client(test.evaluator).evaluate(Self.world.connection(test.chain))
        #expect(evaluation.isTrusted == test.trusted)
        #expect(evaluation.decidingStep?.check == test.deciding)
        #expect(evaluation.rejection?.code == test.reason)
        #expect(evaluation.urlError == (test.trusted ? nil : test.evaluator == nil ? .serverCertificateUntrusted : .cancelled))
    }

    @Test("a pinned-certificates evaluator's trace names every branch Alamofire takes, in order")
    func pinnedCertificatesTrace() {
        let evaluation = Self.client(.pinned([.leaf])).evaluate(Self.world.connection(.real))
        let path = "'bank.test' -> 'Bank Intermediate' -> 'Bank Root', ending at 'Bank Root', a root built into iOS"
        #expect(
            evaluation.steps == [
                TraceStep(.alamofireEvaluatorLookup, .note, "ServerTrustManager has an evaluator for exactly 'bank.test'"),
                TraceStep(
                    .alamofireEvaluator, .note,
                    "PinnedCertificatesTrustEvaluator(certificates: ['bank.test'], acceptSelfSignedCertificates: false, "
                        + "performDefaultValidation: true, validateHost: true)"),
                TraceStep(.alamofirePinsPresent, .passed, "1 certificate is pinned"),
                TraceStep(.alamofireSelfSignedAnchors, .skipped, "acceptSelfSignedCertificates is false: the device's trust store keeps its anchors"),
                TraceStep(
                    .alamofireDefaultValidation, .passed,
                    "performDefaultValidation(forHost:) evaluates the chain with SecPolicyCreateSSL(true, nil), no host name, "
                        + "against the device trust store: trusted (kSecTrustResultUnspecified): path \(path)"),
                TraceStep(
                    .alamofireHostValidation, .passed,
                    "performValidation(forHost:) evaluates the whole chain with SecPolicyCreateSSL(true, \"bank.test\"), host name included, "
                        + "against the device trust store: trusted (kSecTrustResultUnspecified): path \(path)"),
                TraceStep(
                    .alamofireCertificatePinning, .passed,
                    "'bank.test' in the trust's chain 'bank.test' -> 'Bank Intermediate' -> 'Bank Root' is byte for byte a pinned certificate"),
                TraceStep(.challengeDisposition, .note, "the evaluation passed: SessionDelegate answers useCredential with URLCredential(trust:)"),
            ])
        #expect(evaluation.path == Self.world.bank.realChain + [Self.world.bank.root.certificate])
    }

    @Test("a host without an evaluator throws noRequiredEvaluator, because hosts are looked up exactly")
    func noRequiredEvaluator() {
        let evaluation = Self.client(.defaultTrust()).evaluate(Self.world.connection(.real, host: "www.bank.test"))
        #expect(
            evaluation.steps == [
                TraceStep(
                    .alamofireEvaluatorLookup, .failed,
                    "ServerTrustManager has no evaluator for 'www.bank.test' (hosts match exactly, and it has evaluators for 'bank.test') and "
                        + "allHostsMustBeEvaluated is true: it throws AFError.serverTrustEvaluationFailed(reason: .noRequiredEvaluator(host: \"www.bank.test\"))"
                ),
                TraceStep(
                    .challengeDisposition, .note,
                    "SessionDelegate answers cancelAuthenticationChallenge; the request fails with "
                        + "AFError.serverTrustEvaluationFailed(reason: .noRequiredEvaluator(host: \"www.bank.test\"))"),
            ])
        #expect(evaluation.rejection == .alamofireNoRequiredEvaluator)
    }

    @Test("with allHostsMustBeEvaluated false, a host without an evaluator gets the system's default handling")
    func defaultHandlingForUnlistedHost() {
        let manager = ServerTrustManager(allHostsMustBeEvaluated: false, evaluators: ["bank.test": .disabled])
        let evaluation = Alamofire5Client(serverTrustManager: manager).evaluate(Self.world.connection(.forged, host: "www.bank.test"))
        #expect(evaluation.steps.map(\.check) == [.alamofireEvaluatorLookup, .systemTrust, .challengeDisposition])
        #expect(evaluation.decidingStep?.outcome == .failed)
        #expect(evaluation.urlError == .serverCertificateUntrusted)
    }

    @Test("a pinned certificate appended to a forged chain is named as presented but outside the chain the trust built")
    func appendedPinnedCertificateIsExplained() {
        let evaluation = Self.client(.pinned([.leaf])).evaluate(Self.world.connection(.appendedPinned))
        #expect(
            evaluation.decidingStep?.detail
                == "none of the 2 certificates in the trust's chain 'forged bank.test' -> 'Attacker CA' is byte for byte a pinned certificate ('bank.test'); "
                + "'bank.test' was presented by the server but is not part of the chain the trust built, so it does not count: it throws "
                + "AFError.serverTrustEvaluationFailed(reason: .certificatePinningFailed(host: \"bank.test\", …))")
    }

    @Test("validateHost with performDefaultValidation off still checks the chain, as the evaluation with the host name includes it")
    func validateHostAloneStillValidatesTheChain() {
        let evaluation = Self.client(.pinned([.intermediate], pdv: false)).evaluate(Self.world.connection(.expired))
        #expect(
            evaluation.steps.first { $0.check == .alamofireDefaultValidation }
                == TraceStep(
                    .alamofireDefaultValidation, .skipped,
                    "performDefaultValidation is false, but validateHost is true and its evaluation checks the whole chain anyway"))
        #expect(evaluation.rejection?.code == "expired")
    }

    @Test("revocation checking says no responder is reachable, and fails only when a positive response is required")
    func revocationIsUnknown() {
        let soft = Self.client(.revocation()).evaluate(Self.world.connection(.real))
        #expect(soft.decidingStep?.detail.contains("no CRL or OCSP responder is reachable in the simulation") == true)
        #expect(soft.decidingStep?.detail.contains("without .requirePositiveResponse an unknown status passes") == true)
        let hard = Self.client(.revocation(.any.union(.requirePositiveResponse))).evaluate(Self.world.connection(.real))
        #expect(hard.decidingStep?.detail.hasSuffix("it throws AFError.serverTrustEvaluationFailed(reason: .trustEvaluationFailed(error:))") == true)
        #expect(RevocationOptions.any.union(.requirePositiveResponse).description == "[.any, .requirePositiveResponse]")
        #expect(RevocationOptions([.crl, .networkAccessDisabled]).description == "[.crl, .networkAccessDisabled]")
    }

    @Test("when Alamofire accepts a chain the system does not trust, a note says ATS would still refuse it on a device")
    func atsNoteOnlyWhereItMatters() {
        let disabled = Self.client(.disabled).evaluate(Self.world.connection(.forged))
        #expect(disabled.steps.last?.check == .alamofireAppTransportSecurity)
        #expect(disabled.steps.last?.outcome == .note)
        #expect(disabled.steps.last?.detail.contains("'Attacker CA' is self-signed and is not among the trust anchors") == true)
        let pinned = Self.client(.pinned([.leaf])).evaluate(Self.world.connection(.real))
        #expect(!pinned.steps.contains { $0.check == .alamofireAppTransportSecurity })
    }

    @Test("a Session without a ServerTrustManager is the default")
    func defaultSession() {
        #expect(Alamofire5Client().serverTrustManager == nil)
        #expect(ServerTrustManager(evaluators: [:]).allHostsMustBeEvaluated)
    }
}
