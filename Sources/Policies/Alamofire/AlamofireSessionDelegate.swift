import PKI

/// What Alamofire 4's and 5's `SessionDelegate` share around their evaluators: the system's default handling
/// when no evaluator answers, the disposition, and App Transport Security's view of a chain Alamofire accepted.
enum AlamofireSessionDelegate {
    /// `performDefaultHandling`: the system evaluates the chain (SSL policy for the host, the device trust store).
    /// `why` says why Alamofire left the challenge to the system.
    static func defaultHandling(_ trust: ServerTrust, host: String, why: TraceStep, into trace: inout Trace) -> PolicyEvaluation {
        trace.steps.append(why)
        let system = IOSClient.systemEvaluation(trust, host: host)
        let evaluation = IOSClient.systemEvaluationName(host: host)
        guard let failure = system.reason else {
            trace.add(
                .systemTrust, .passed,
                "\(evaluation) trusts the chain (\(IOSClient.resultType(system))): path \(system.path.pathDescription)\(SecurityPolicy.anchorClause(system))")
            trace.add(.challengeDisposition, .note, "performDefaultHandling: the system trusts the chain, so the connection goes on")
            return trace.accept(path: system.path)
        }
        trace.add(.systemTrust, .failed, "\(evaluation) does not trust the chain (\(IOSClient.resultType(system))): \(SecurityPolicy.failures(system))")
        trace.noteSystemEvaluationUnhooked()
        trace.add(
            .challengeDisposition, .note,
            "performDefaultHandling: the system does not trust the chain, so the task fails with \(NSURLError.serverCertificateUntrusted)")
        return PolicyEvaluation(steps: trace.steps, path: system.path, rejection: .untrustedChain(failure), urlError: .serverCertificateUntrusted)
    }

    /// `useCredential` with `URLCredential(trust:)`, then, when the system itself would not trust the chain,
    /// the note that ATS would refuse it on a device: Alamofire's own docs warn that ATS overrides the challenge
    /// system unless Info.plist exempts the host.
    static func useCredential(_ trust: ServerTrust, host: String, path: [Certificate], trace: inout Trace) -> PolicyEvaluation {
        trace.add(.challengeDisposition, .note, "the evaluation passed: SessionDelegate answers useCredential with URLCredential(trust:)")
        noteATS(trust, host: host, trace: &trace)
        return trace.accept(path: path)
    }

    /// The note that ATS would refuse, on a device, a chain the system does not trust (nothing when it does).
    static func noteATS(_ trust: ServerTrust, host: String, trace: inout Trace) {
        let system = IOSClient.systemEvaluation(trust, host: host)
        if !system.isValid {
            trace.add(
                .alamofireAppTransportSecurity, .note,
                "this model judges Alamofire alone; on a device, ATS also asks \(IOSClient.systemEvaluationName(host: host)), which does not trust "
                    + "the chain (\(SecurityPolicy.failures(system))), so the connection would fail unless Info.plist's NSAppTransportSecurity "
                    + "exempts '\(host)', as Alamofire's documentation warns")
            trace.noteSystemEvaluationUnhooked()
        }
    }

    /// `cancelAuthenticationChallenge`: the request fails; `error` is what Alamofire reports, and URLSession's own
    /// error is NSURLErrorCancelled.
    static func cancel(reason: RejectionReason, path: [Certificate], error: String, trace: inout Trace) -> PolicyEvaluation {
        trace.add(.challengeDisposition, .note, "SessionDelegate answers cancelAuthenticationChallenge; \(error)")
        return PolicyEvaluation(steps: trace.steps, path: path, rejection: reason, urlError: .cancelled)
    }

    /// "trusted (kSecTrustResultUnspecified): path 'bank.test' -> 'Bank Intermediate' -> 'Bank Root', ending at 'Bank Root',
    /// a root built into iOS", or "not trusted (kSecTrustResultRecoverableTrustFailure) because …": the verdict with the
    /// `SecTrustResultType` of `trust`'s evaluation, which Alamofire 4's `trustIsValid` reads (`.unspecified` or `.proceed`).
    static func verdict(_ result: TrustResult, of trust: ServerTrust) -> String {
        let type = ServerTrust.ResultType(result, anchorsOnly: trust.hasCustomAnchors).rawValue
        return result.isValid
            ? "trusted (\(type)): path \(result.path.pathDescription)\(SecurityPolicy.anchorClause(result))"
            : "not trusted (\(type)) because \(SecurityPolicy.failures(result))"
    }
}
