import PKI

extension Alamofire5Client {
    /// Alamofire 5.12's `SessionDelegate.attemptServerTrustAuthentication(with:)` and the evaluator it picks,
    /// transcribed branch by branch, each branch a step; the Swift it mirrors is quoted above each branch.
    ///
    /// On iOS 12 and later every failed evaluation throws `.trustEvaluationFailed(error:)`; Alamofire's
    /// `.defaultEvaluationFailed`, `.hostValidationFailed` and `.revocationCheckFailed` come only from its iOS 10–11 path.
    public func evaluate(_ connection: PresentedConnection) -> PolicyEvaluation {
        let connection = infoPlistPins.applied(to: connection)
        let host = connection.host
        var trace = Trace(secTrustEvaluateHooked: secTrustEvaluateHooked)
        // guard let evaluator = try stateProvider?.serverTrustManager?.serverTrustEvaluator(forHost: host) else {
        //     return (.performDefaultHandling, nil, nil) }
        guard let manager = serverTrustManager else {
            let why = TraceStep(
                .alamofireEvaluatorLookup, .note, "the Session has no ServerTrustManager, so SessionDelegate answers performDefaultHandling")
            return AlamofireSessionDelegate.defaultHandling(connection.serverTrust, host: host, why: why, into: &trace)
        }
        // guard let evaluator = evaluators[host] else {
        //     if allHostsMustBeEvaluated { throw AFError.serverTrustEvaluationFailed(reason: .noRequiredEvaluator(host: host)) }
        //     return nil }
        guard let evaluator = manager.evaluators[host] else {
            let listed =
                manager.evaluators.isEmpty
                ? "it has no evaluators"
                : "hosts match exactly, and it has evaluators for \(manager.evaluators.keys.sorted().map { "'\($0)'" }.joined(separator: ", "))"
            guard manager.allHostsMustBeEvaluated else {
                let why = TraceStep(
                    .alamofireEvaluatorLookup, .note,
                    "ServerTrustManager has no evaluator for '\(host)' (\(listed)) and allHostsMustBeEvaluated is false, "
                        + "so SessionDelegate answers performDefaultHandling")
                return AlamofireSessionDelegate.defaultHandling(connection.serverTrust, host: host, why: why, into: &trace)
            }
            let error = Self.afError(".noRequiredEvaluator(host: \"\(host)\")")
            trace.add(
                .alamofireEvaluatorLookup, .failed,
                "ServerTrustManager has no evaluator for '\(host)' (\(listed)) and allHostsMustBeEvaluated is true: it throws \(error)")
            return AlamofireSessionDelegate.cancel(reason: .alamofireNoRequiredEvaluator, path: [], error: Self.fails(error), trace: &trace)
        }
        trace.add(.alamofireEvaluatorLookup, .note, "ServerTrustManager has an evaluator for exactly '\(host)'")

        // try evaluator.evaluate(trust, forHost: host)
        // return (.useCredential, URLCredential(trust: trust), nil)
        var run = EvaluatorRun(trust: connection.serverTrust, host: host, trace: trace)
        guard let thrown = run.evaluate(evaluator) else {
            return AlamofireSessionDelegate.useCredential(connection.serverTrust, host: host, path: run.path, trace: &run.trace)
        }
        // } catch { return (.cancelAuthenticationChallenge, nil, error.asAFError(or: …)) }
        return AlamofireSessionDelegate.cancel(reason: thrown.reason, path: run.path, error: Self.fails(thrown.error), trace: &run.trace)
    }

    /// "AFError.serverTrustEvaluationFailed(reason: .noCertificatesFound)".
    static func afError(_ reason: String) -> String { "AFError.serverTrustEvaluationFailed(reason: \(reason))" }

    private static func fails(_ error: String) -> String { "the request fails with \(error)" }

    static let trustEvaluationFailed = afError(".trustEvaluationFailed(error:)")
}

/// One run of an evaluator over the challenge's trust, which Alamofire mutates as it goes: each evaluation
/// sets its policy, and `acceptSelfSignedCertificates` sets anchors that later evaluations keep.
private struct EvaluatorRun {
    /// What an evaluator threw: the rejection and Alamofire's error, as Swift would print it.
    struct Thrown {
        let reason: RejectionReason
        let error: String
    }

    var trust: ServerTrust
    let host: String
    var trace: Trace
    /// The chain the last evaluation built.
    var path: [Certificate] = []

    init(trust: ServerTrust, host: String, trace: Trace) {
        self.trust = trust
        self.host = host
        self.trace = trace
    }

    /// Nil when `evaluator` returned, what it threw otherwise.
    mutating func evaluate(_ evaluator: ServerTrustEvaluator) -> Thrown? {
        switch evaluator {
        case .defaultTrust(let validateHost):
            trace.add(.alamofireEvaluator, .note, "\(evaluator)")
            // if validateHost { try trust.af.performValidation(forHost: host) }
            // try trust.af.performDefaultValidation(forHost: host)
            return hostValidation(validateHost) ?? defaultValidation(true, skipped: "")

        case .revocationChecking(let performDefaultValidation, let validateHost, let options):
            trace.add(.alamofireEvaluator, .note, "\(evaluator)")
            return defaultValidation(performDefaultValidation, skipped: "performDefaultValidation is false: no evaluation without the host name here")
                ?? hostValidation(validateHost) ?? revocation(options)

        case .pinnedCertificates(let certificates, let acceptSelfSigned, let performDefaultValidation, let validateHost):
            trace.add(.alamofireEvaluator, .note, "\(evaluator)")
            // guard !certificates.isEmpty else { throw AFError.serverTrustEvaluationFailed(reason: .noCertificatesFound) }
            guard !certificates.isEmpty else {
                return pinsMissing("certificates", error: ".noCertificatesFound", reason: .alamofireNoCertificatesFound)
            }
            trace.add(.alamofirePinsPresent, .passed, "\(certificates.count) certificate\(certificates.count == 1 ? " is" : "s are") pinned")
            // if acceptSelfSignedCertificates { try trust.af.setAnchorCertificates(certificates) }
            if acceptSelfSigned {
                trust.setAnchorCertificates(certificates)
                trace.add(
                    .alamofireSelfSignedAnchors, .note,
                    "acceptSelfSignedCertificates is true: SecTrustSetAnchorCertificates with the pinned certificates and "
                        + "SecTrustSetAnchorCertificatesOnly(true), so from here on they are the only anchors and the device's roots no longer count")
            } else {
                trace.add(.alamofireSelfSignedAnchors, .skipped, "acceptSelfSignedCertificates is false: the device's trust store keeps its anchors")
            }
            if let thrown = validations(performDefaultValidation: performDefaultValidation, validateHost: validateHost) { return thrown }
            return certificatePinning(certificates)

        case .publicKeys(let keys, let performDefaultValidation, let validateHost):
            trace.add(.alamofireEvaluator, .note, "\(evaluator)")
            guard !keys.isEmpty else { return pinsMissing("keys", error: ".noPublicKeysFound", reason: .alamofireNoPublicKeysFound) }
            trace.add(.alamofirePinsPresent, .passed, "\(keys.count) public key\(keys.count == 1 ? " is" : "s are") pinned")
            if let thrown = validations(performDefaultValidation: performDefaultValidation, validateHost: validateHost) { return thrown }
            return publicKeyPinning(keys)

        case .composite(let evaluators):
            // for evaluator in self { try evaluator.evaluate(trust, forHost: host) }
            guard !evaluators.isEmpty else {
                trace.add(.alamofireEvaluator, .passed, "\(evaluator) has no evaluators, so it checks nothing and never throws")
                return nil
            }
            trace.add(.alamofireEvaluator, .note, "\(evaluator) runs its \(evaluators.count) evaluators in order; the first that throws fails the challenge")
            for inner in evaluators {
                if let thrown = evaluate(inner) { return thrown }
            }
            return nil

        case .disabled:
            trace.add(.alamofireEvaluator, .note, "\(evaluator)")
            trace.add(
                .alamofireDisabledEvaluation, .passed, "DisabledTrustEvaluator's evaluate(_:forHost:) is empty: every chain is accepted, nothing is checked")
            return nil
        }
    }

    // MARK: - The evaluations

    /// `performDefaultValidation` then `performValidation`, as the pinning evaluators run them.
    private mutating func validations(performDefaultValidation: Bool, validateHost: Bool) -> Thrown? {
        let skipped =
            validateHost
            ? "performDefaultValidation is false, but validateHost is true and its evaluation checks the whole chain anyway"
            : "performDefaultValidation is false and validateHost is false too: nothing checks the chain's root, its dates or its host name, "
                + "only the pin match below"
        return defaultValidation(performDefaultValidation, skipped: skipped) ?? hostValidation(validateHost)
    }

    /// `trust.af.performDefaultValidation(forHost:)`: `evaluate(afterApplying: SecPolicyCreateSSL(true, nil))`.
    private mutating func defaultValidation(_ enabled: Bool, skipped: String) -> Thrown? {
        guard enabled else {
            trace.add(.alamofireDefaultValidation, .skipped, skipped)
            return nil
        }
        return evaluation(
            .alamofireDefaultValidation, policy: .ssl(host: nil),
            "performDefaultValidation(forHost:) evaluates the chain with SecPolicyCreateSSL(true, nil), no host name, \(anchors)")
    }

    /// `trust.af.performValidation(forHost:)`: `evaluate(afterApplying: SecPolicyCreateSSL(true, host))`, the whole
    /// chain as well as the name.
    private mutating func hostValidation(_ enabled: Bool) -> Thrown? {
        guard enabled else {
            trace.add(.alamofireHostValidation, .skipped, "validateHost is false: the host name is never compared with the leaf")
            return nil
        }
        return evaluation(
            .alamofireHostValidation, policy: .ssl(host: host),
            "performValidation(forHost:) evaluates the whole chain with SecPolicyCreateSSL(true, \"\(host)\"), host name included, \(anchors)")
    }

    /// One `SecTrustEvaluateWithError` under `policy`, recorded as `check`; a failure throws `.trustEvaluationFailed`.
    private mutating func evaluation(_ check: TraceStep.Check, policy: ServerTrust.Policy, _ what: String) -> Thrown? {
        trust.policy = policy
        let result = trust.evaluate()
        path = result.path
        let thrown = result.reason.map { Thrown(reason: .untrustedChain($0), error: Alamofire5Client.trustEvaluationFailed) }
        let throwing = thrown == nil ? "" : "; it throws \(Alamofire5Client.trustEvaluationFailed)"
        trace.add(check, thrown == nil ? .passed : .failed, "\(what): \(AlamofireSessionDelegate.verdict(result, of: trust))\(throwing)")
        return hooked(thrown, result)
    }

    /// What the evaluation just recorded throws for the app: `thrown`, or nothing once the hooked
    /// `SecTrustEvaluateWithError` says true.
    private mutating func hooked(_ thrown: Thrown?, _ result: TrustResult) -> Thrown? {
        trace.read(result, by: .alamofire5Evaluate)
        return trace.secTrustEvaluateHooked ? nil : thrown
    }

    /// "against the device trust store" or "against the pinned anchors only".
    private var anchors: String {
        trust.hasCustomAnchors ? "against the pinned anchors only" : "against the device trust store"
    }

    /// `evaluate(afterApplying: SecPolicy.af.revocation(options:))`: the revocation policy replaces the trust's
    /// policies, so the chain is built to an anchor again but no host name or TLS purpose is checked.
    private mutating func revocation(_ options: RevocationOptions) -> Thrown? {
        trust.policy = .basicX509
        let result = trust.evaluate()
        path = result.path
        let what = "evaluate(afterApplying:) with SecPolicyCreateRevocation(\(options)) alone, which still builds the chain to an anchor \(anchors)"
        if let failure = result.reason {
            trace.add(
                .alamofireRevocationCheck, .failed,
                "\(what): \(AlamofireSessionDelegate.verdict(result, of: trust)); it throws \(Alamofire5Client.trustEvaluationFailed)")
            return hooked(Thrown(reason: .untrustedChain(failure), error: Alamofire5Client.trustEvaluationFailed), result)
        }
        let unknown = "no CRL or OCSP responder is reachable in the simulation, so no certificate's revocation status is known"
        guard options.contains(.requirePositiveResponse) else {
            trace.add(
                .alamofireRevocationCheck, .passed,
                "\(what): \(AlamofireSessionDelegate.verdict(result, of: trust)); \(unknown), and without .requirePositiveResponse an unknown status passes")
            return hooked(nil, result)
        }
        trace.add(
            .alamofireRevocationCheck, .failed,
            "\(what): \(AlamofireSessionDelegate.verdict(result, of: trust)); but \(unknown), and .requirePositiveResponse makes an unknown status fail: "
                + "it throws \(Alamofire5Client.trustEvaluationFailed)")
        return hooked(Thrown(reason: .alamofireRevocationCheckFailed, error: Alamofire5Client.trustEvaluationFailed), result)
    }

    // MARK: - Pinning

    private mutating func pinsMissing(_ what: String, error: String, reason: RejectionReason) -> Thrown {
        let thrown = Alamofire5Client.afError(error)
        trace.add(.alamofirePinsPresent, .failed, "no \(what) are pinned: it throws \(thrown) before evaluating anything")
        return Thrown(reason: reason, error: thrown)
    }

    /// `Set(trust.af.certificateData)` against the pinned DER: the chain `SecTrustCopyCertificateChain` returns,
    /// which the evaluation builds, so a pinned certificate merely appended to the presented list does not count.
    private mutating func certificatePinning(_ certificates: [Certificate]) -> Thrown? {
        let chain = trust.evaluate().path
        path = chain
        if let match = chain.first(where: certificates.contains) {
            trace.add(
                .alamofireCertificatePinning, .passed,
                "'\(match.label)' in the trust's chain \(chain.pathDescription) is byte for byte a pinned certificate")
            return nil
        }
        let error = Alamofire5Client.afError(".certificatePinningFailed(host: \"\(host)\", …)")
        trace.add(
            .alamofireCertificatePinning, .failed,
            "none of the \(chain.count) certificates in the trust's chain \(chain.pathDescription) is byte for byte a pinned certificate "
                + "(\(SecurityPolicy.names(certificates)))\(outsideChain(certificates.contains, chain: chain)): it throws \(error)")
        return Thrown(reason: .pinnedCertificateNotInPath, error: error)
    }

    /// `trust.af.publicKeys` against the pinned keys: the keys of the chain the trust builds.
    private mutating func publicKeyPinning(_ keys: [Certificate]) -> Thrown? {
        let chain = trust.evaluate().path
        path = chain
        let pinned = Set(keys.map(\.publicKeyInfo))
        let matches = chain.compactMap { certificate in keys.first { $0.publicKeyInfo == certificate.publicKeyInfo }.map { (certificate, $0) } }
        guard matches.isEmpty else {
            trace.add(.alamofirePublicKeyPinning, .passed, "\(SecurityPolicy.keyMatches(matches)) (the trust's chain \(chain.pathDescription))")
            return nil
        }
        let error = Alamofire5Client.afError(".publicKeyPinningFailed(host: \"\(host)\", …)")
        trace.add(
            .alamofirePublicKeyPinning, .failed,
            "none of the \(chain.count) public keys in the trust's chain \(chain.pathDescription) is the key of pinned \(SecurityPolicy.names(keys))"
                + "\(outsideChain({ pinned.contains($0.publicKeyInfo) }, chain: chain)): it throws \(error)")
        return Thrown(reason: .pinnedPublicKeyNotInPath, error: error)
    }

    /// "; pinned 'bank.test' was presented but is not part of the chain, so it does not count": the appended-certificate attack.
    private func outsideChain(_ isPinned: (Certificate) -> Bool, chain: [Certificate]) -> String {
        let presented = trust.certificates.filter { isPinned($0) && !chain.contains($0) }
        guard !presented.isEmpty else { return "" }
        return "; \(SecurityPolicy.names(presented)) \(presented.count == 1 ? "was" : "were") presented by the server but "
            + "\(presented.count == 1 ? "is" : "are") not part of the chain the trust built, so \(presented.count == 1 ? "it does" : "they do") not count"
    }
}
