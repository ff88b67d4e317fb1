import PKI

extension IOSClient {
    /// ATS before any connection: an `http://` load is refused (NSURLError -1022) or allowed, the step saying
    /// which key decided. Nil for any other scheme (`https://`), whose trace starts in the handshake.
    public func evaluateLoad(scheme: String, host: String) -> PolicyEvaluation? {
        guard scheme.lowercased() == "http" else { return nil }
        let (step, rejection) = ATSRules(ats, host: host).plainHTTP()
        return PolicyEvaluation(
            steps: [step], path: [], rejection: rejection, urlError: rejection.map { _ in .appTransportSecurityRequiresSecureConnection })
    }

    /// The whole client's verdict on the chain a handshake presented: ATS's checks of the connection, the
    /// challenge handler (with `AFSecurityPolicy`'s own steps when AFNetworking answers), the disposition,
    /// then ATS's own demand that the system trust the chain.
    ///
    /// - Parameters:
    ///   - serverTrust: the chain as presented, against the device trust store.
    ///   - negotiated: what the handshake settled, which ATS judges.
    ///   - host: the URL's host, which ATS and the system evaluation use.
    ///   - domain: what AFNetworking passes the policy as `forDomain:` (nil when the app passes nil).
    func evaluateTrust(serverTrust: ServerTrust, negotiated: NegotiatedTLS, host: String, domain: String?) -> PolicyEvaluation {
        // The app's process: every SSL policy with a host name created in it carries the Info.plist's pins, from iOS 14.
        let serverTrust = infoPlistPins.applied(to: serverTrust)
        let rules = ATSRules(ats, host: host)
        var steps = [rules.secureScheme()]
        // These rules fail the handshake itself, before any challenge reaches the app.
        for check in [{ rules.tlsVersion(negotiated.version) }, { rules.cipherSuite(negotiated) }, { rules.certificateStrength(serverTrust.leaf) }] {
            let (step, rejection) = check()
            steps.append(step)
            if let rejection { return PolicyEvaluation(steps: steps, path: [], rejection: rejection, urlError: .secureConnectionFailed) }
        }

        let answer = answerChallenge(serverTrust: serverTrust, host: host, domain: domain)
        steps += answer.steps
        if let reason = answer.leavesNothingToATS {
            steps.append(TraceStep(.atsServerTrust, .skipped, reason))
            return PolicyEvaluation(steps: steps, path: answer.path, rejection: answer.rejection, urlError: answer.urlError)
        }
        if let exemption = rules.serverTrustExemption {
            steps.append(TraceStep(.atsServerTrust, .skipped, exemption))
            if let pins = ats.pins(forHost: host) {
                steps.append(
                    TraceStep(
                        .pinnedIdentities, .skipped,
                        "NSPinnedDomains \(pins.domains.map { "'\($0)'" }.joined(separator: " and ")) covers '\(host)', but its checks are part of "
                            + "every evaluation with the SSL policy for '\(host)', and ATS asks none for this host: only such an evaluation by the "
                            + "handler applies them"))
            }
            return PolicyEvaluation(steps: steps, path: answer.path, rejection: nil)
        }

        // ATS asks the system's default evaluation even though the handler answered UseCredential.
        let system = Self.systemEvaluation(serverTrust, host: host)
        let evaluation = Self.systemEvaluationName(host: host)
        if let trusted = Self.apartFromPins(system, of: serverTrust),
            let pinned = pinnedIdentities(path: trusted.path, host: host, platform: serverTrust.platform)
        {
            steps.append(pinned.step)
            if let rejection = pinned.rejection {
                steps.append(
                    TraceStep(
                        .atsServerTrust, .failed,
                        "the handler accepted the chain, but ATS requires \(evaluation) to trust it as well, and its SSL policy fails "
                            + "NSPinnedDomains's check (kSecTrustResultRecoverableTrustFailure, errSSLATSCertificateTrustViolation). \(rules.serverTrustRemedy)"
                    ))
                steps += systemEvaluationUnhooked
                return PolicyEvaluation(steps: steps, path: system.path, rejection: rejection, urlError: .secureConnectionFailed)
            }
        }
        guard let failure = system.reason else {
            steps.append(
                TraceStep(
                    .atsServerTrust, .note,
                    "ATS also asks \(evaluation), which trusts the chain (\(Self.resultType(system))): path \(system.path.pathDescription)"
                        + "\(SecurityPolicy.anchorClause(system)); the handler's answer stands"))
            return PolicyEvaluation(steps: steps, path: answer.path, rejection: nil)
        }
        steps.append(
            TraceStep(
                .atsServerTrust, .failed,
                "the handler accepted the chain, but ATS requires \(evaluation) to trust it as well, and it does not (\(Self.resultType(system))): "
                    + "\(SecurityPolicy.failures(system)). \(rules.serverTrustRemedy)"))
        steps += systemEvaluationUnhooked
        return PolicyEvaluation(steps: steps, path: system.path, rejection: .atsCertificateTrustViolation(failure), urlError: .secureConnectionFailed)
    }

    // MARK: - The challenge handler

    /// The handler's steps and its answer; a rejection here is the task's failure.
    struct Answer {
        var steps: [TraceStep]
        var path: [Certificate]
        var rejection: RejectionReason?
        var urlError: NSURLError?
        /// Why ATS's server-trust check does not follow this answer; nil when it does (the handler said UseCredential).
        var leavesNothingToATS: String?
    }

    private func answerChallenge(serverTrust: ServerTrust, host: String, domain: String?) -> Answer {
        if challengeHooked { return Answer(steps: hookedAnswer(), path: []) }
        switch challengeHandler {
        case .acceptAll:
            return Answer(
                steps: [
                    TraceStep(
                        .challengeHandler, .passed, "the app's challenge block answers UseCredential with credentialForTrust: without evaluating anything"),
                    TraceStep(.challengeDisposition, .note, "UseCredential with credentialForTrust:, whatever the chain"),
                ],
                path: [])

        case .afnetworking:
            // evaluateServerTrust = [challenge.protectionSpace.authenticationMethod isEqualToString:NSURLAuthenticationMethodServerTrust];
            // if ([self.securityPolicy evaluateServerTrust:challenge.protectionSpace.serverTrust forDomain:challenge.protectionSpace.host]) {
            //     disposition = NSURLSessionAuthChallengeUseCredential; … } else { … disposition = NSURLSessionAuthChallengeCancelAuthenticationChallenge; }
            // 2.0 has no forDomain: argument.
            let call = policy.version.hasValidatesDomainName ? "evaluateServerTrust:forDomain:\(domain.map { "@\"\($0)\"" } ?? "nil")" : "evaluateServerTrust:"
            let handler = TraceStep(
                .challengeHandler, .note,
                "AFURLSessionManager has no challenge block from the app, so it asks the security policy (\(policy.version.rawValue)): \(call)")
            let verdict = policy.evaluate(serverTrust: serverTrust, forDomain: domain)
            guard verdict.isTrusted else {
                if policy.version.rejectsProtectionSpace {
                    return rejectProtectionSpace(after: [handler] + verdict.steps, serverTrust: serverTrust, host: host, domain: domain)
                }
                let (error, fails) = cancellationError
                return Answer(
                    steps: [handler] + verdict.steps + [TraceStep(.challengeDisposition, .note, "the policy said NO: CancelAuthenticationChallenge; \(fails)")],
                    path: verdict.path, rejection: verdict.rejection, urlError: error,
                    leavesNothingToATS: "the handler cancelled the challenge, so there is no connection left for ATS to judge")
            }
            let disposition = TraceStep(.challengeDisposition, .note, "the policy said YES: UseCredential with credentialForTrust:")
            return Answer(steps: [handler] + verdict.steps + [disposition], path: verdict.path)

        case .systemDefault:
            let handler = TraceStep(
                .challengeHandler, .note, "the app has no challenge delegate method, so URLSession performs the default handling: the system's own evaluation")
            let system = Self.systemEvaluation(serverTrust, host: host)
            let evaluation = Self.systemEvaluationName(host: host)
            let skips = "the handler's answer was the system's default evaluation, the one ATS would ask"
            if let trusted = Self.apartFromPins(system, of: serverTrust),
                let pinned = pinnedIdentities(path: trusted.path, host: host, platform: serverTrust.platform)
            {
                return pinnedDefaultHandling(handler: handler, system: trusted, pinned: pinned, host: host, skips: skips)
            }
            guard let failure = system.reason else {
                return Answer(
                    steps: [
                        handler,
                        TraceStep(
                            .systemTrust, .passed,
                            "\(evaluation) trusts the chain (\(Self.resultType(system))): path \(system.path.pathDescription)"
                                + SecurityPolicy.anchorClause(system)),
                        TraceStep(.challengeDisposition, .note, "PerformDefaultHandling: the system trusts the chain, so the connection goes on"),
                    ],
                    path: system.path, leavesNothingToATS: skips)
            }
            return Answer(
                steps: [
                    handler,
                    TraceStep(
                        .systemTrust, .failed, "\(evaluation) does not trust the chain (\(Self.resultType(system))): \(SecurityPolicy.failures(system))"),
                    TraceStep(
                        .challengeDisposition, .note,
                        "PerformDefaultHandling: the system does not trust the chain, so the task fails with \(NSURLError.serverCertificateUntrusted)"),
                ],
                path: system.path, rejection: .untrustedChain(failure), urlError: .serverCertificateUntrusted, leavesNothingToATS: skips)

        case .identityBlock:
            return identityBlockAnswer(serverTrust: serverTrust, domain: domain)
        }
    }

    /// URLSession's default handling of a host `NSPinnedDomains` covers: the system's evaluation builds a trusted
    /// path, and its SSL policy's pin checks decide. A failed pin fails the task as any failed evaluation does.
    private func pinnedDefaultHandling(
        handler: TraceStep, system: TrustResult, pinned: (step: TraceStep, rejection: RejectionReason?), host: String, skips: String
    ) -> Answer {
        let built = TraceStep(
            .systemTrust, .passed,
            "\(Self.systemEvaluationName(host: host)) builds a trusted path \(system.path.pathDescription)\(SecurityPolicy.anchorClause(system)); "
                + "its SSL policy also makes NSPinnedDomains's checks for '\(host)'")
        guard let rejection = pinned.rejection else {
            let disposition = TraceStep(
                .challengeDisposition, .note, "PerformDefaultHandling: the system trusts the chain (\(Self.resultType(system))), so the connection goes on")
            return Answer(steps: [handler, built, pinned.step, disposition], path: system.path, leavesNothingToATS: skips)
        }
        let disposition = TraceStep(
            .challengeDisposition, .note,
            "PerformDefaultHandling: the system does not trust the chain, so the task fails with \(NSURLError.serverCertificateUntrusted)")
        return Answer(
            steps: [handler, built, pinned.step, disposition], path: system.path, rejection: rejection, urlError: .serverCertificateUntrusted,
            leavesNothingToATS: skips)
    }

    /// What the app's completion handler gets when AFNetworking cancels the challenge, and the sentence saying so.
    ///
    /// 4.0.0 and 4.0.1 attach their own error to the task (4.0.0's `ServerTrustError`, 4.0.1's
    /// `serverTrustErrorForServerTrust:url:`, both NSURLErrorServerCertificateUntrusted), which
    /// `URLSession:task:didCompleteWithError:` reports instead of URLSession's cancellation:
    /// `error = objc_getAssociatedObject(task, AuthenticationChallengeErrorKey) ?: error;`
    private var cancellationError: (NSURLError, String) {
        guard policy.version == .v4 else { return (.cancelled, "the task fails with \(NSURLError.cancelled)") }
        return (
            .serverCertificateUntrusted,
            "AFNetworking 4 reports the task's failure as \(NSURLError.serverCertificateUntrusted) rather than URLSession's "
                + "\(NSURLError.cancelled), which 3.1–3.2.1 pass on"
        )
    }

    /// 3.0.0–3.0.4's answer to a NO: `RejectProtectionSpace`, which Apple documents as "reject this challenge,
    /// and call the authentication delegate method again with the next authentication protection space". A
    /// server-trust challenge has no next protection space, so URLSession goes on with its default handling
    /// of this one: the system evaluates the challenge's `serverTrust`, the very trust object AFSecurityPolicy
    /// changed in place: its policy (`SecTrustSetPolicies`) and, in certificate mode, the pinned certificates as
    /// its only anchors (`SecTrustSetAnchorCertificates`). So a forgery the device trusts still fails a
    /// certificate pin but passes a failed public-key pin (AFNetworking issue #3287, PR #3409).
    private func rejectProtectionSpace(after steps: [TraceStep], serverTrust: ServerTrust, host: String, domain: String?) -> Answer {
        let checks = Set(steps.map(\.check))
        var trust = serverTrust
        trust.policy = .ssl(host: host)
        // The contradictory-settings rule returns NO before SecTrustSetPolicies.
        if checks.contains(.policySelection) { trust.policy = policy.validatesDomainName ? .ssl(host: domain) : .basicX509 }
        let anchored = policy.SSLPinningMode == .certificate && checks.contains(.pinnedAnchors)
        if anchored { trust.setAnchorCertificates(policy.sortedPinnedCertificates) }
        let result = trust.evaluate()
        let checked: String =
            switch trust.policy {
            case .ssl(host: let name?): "SSL policy for '\(name)'"
            case .ssl(host: nil): "SSL policy without a host name"
            case .basicX509: "BasicX509 policy"
            }
        let evaluation =
            "the system's default evaluation of the trust as AFSecurityPolicy left it (\(checked), "
            + "\(anchored ? "the pinned certificates as its only anchors" : "the device trust store"))"
        let disposition = TraceStep(
            .challengeDisposition, .note,
            "the policy said NO: AFNetworking 3.0.0–3.0.4 answer RejectProtectionSpace, not CancelAuthenticationChallenge. "
                + "A server-trust challenge has no other protection space to try, so URLSession goes on with its default handling")
        guard let failure = result.reason else {
            let trusted = TraceStep(
                .systemTrust, .passed,
                "\(evaluation) trusts the chain: path \(result.path.pathDescription)\(SecurityPolicy.anchorClause(result)). "
                    + "The policy's NO stopped nothing: the request goes on")
            // ATS asks the same evaluation unless the policy changed the trust's policy or anchors.
            let same = trust.policy == .ssl(host: host) && !anchored
            return Answer(
                steps: steps + [disposition, trusted], path: result.path,
                leavesNothingToATS: same ? "the default handling's evaluation was the one ATS asks, so ATS adds nothing" : nil)
        }
        let refused = TraceStep(
            .systemTrust, .failed,
            "\(evaluation) does not trust the chain: \(SecurityPolicy.failures(result)), so the task fails with \(NSURLError.serverCertificateUntrusted)")
        return Answer(
            steps: steps + [disposition, refused] + systemEvaluationUnhooked, path: result.path, rejection: .untrustedChain(failure),
            urlError: .serverCertificateUntrusted,
            leavesNothingToATS: "the system's default handling refused the chain, so there is no connection left for ATS to judge")
    }

    // MARK: - The system's default evaluation

    /// The note after a refusal by the system's own evaluation when the `secTrustEvaluate` hook is on; none otherwise.
    var systemEvaluationUnhooked: [TraceStep] { secTrustEvaluateHooked ? [RuntimeHook.systemEvaluationUnhooked] : [] }

    /// SecTrust as URLSession creates it: the presented chain, an SSL policy for the URL's host (with the app's
    /// `NSPinnedDomains` pins for it), the device's own anchors (none the app set), at the trust's time under its platform's rules.
    static func systemEvaluation(_ trust: ServerTrust, host: String) -> TrustResult {
        var system = ServerTrust(
            certificates: trust.certificates, deviceTrustStore: trust.deviceTrustStore, policy: .ssl(host: host), verifyDate: trust.verifyDate,
            platform: trust.platform)
        system.pinsForHost = trust.pinsForHost
        return system.evaluate()
    }

    /// The `SecTrustResultType` of the system's evaluation, which sets no anchors of its own.
    static func resultType(_ system: TrustResult) -> String {
        ServerTrust.ResultType(system, anchorsOnly: false).rawValue
    }

    static func systemEvaluationName(host: String) -> String {
        "the system's default evaluation (SSL policy for '\(host)', the device trust store)"
    }
}

extension IOSClient {
    /// The client-certificate challenge of two-way TLS answered from the app's `.p12`, as `SecPKCS12Import`
    /// with the app's password: the identity when it opens, and the step that says what happened.
    ///
    /// A wrong password fails like `SecPKCS12Import`'s errSecAuthFailed (-25293); then, as with a file it cannot
    /// read, the app has no identity and the request goes out without a client certificate.
    public static func importClientIdentity(pkcs12: [UInt8], password: String, file: String) -> (identity: Identity?, step: TraceStep) {
        let asked = "the server asked for a client certificate"
        let without = "so the request goes out without a client certificate"
        do {
            let identity = try Identity(pkcs12: pkcs12, password: password, source: file)
            return (
                identity,
                TraceStep(
                    .clientCertificate, .note,
                    "\(asked): SecPKCS12Import opened '\(file)' with the app's password, and the app's block answers UseCredential with "
                        + "credentialWithIdentity: for '\(identity.certificate.label)'")
            )
        } catch PKIError.wrongPKCS12Password {
            return (
                nil,
                TraceStep(
                    .clientCertificate, .note,
                    "\(asked): SecPKCS12Import of '\(file)' fails with errSecAuthFailed (-25293) because the app's password does not open it, \(without)")
            )
        } catch {
            return (nil, TraceStep(.clientCertificate, .note, "\(asked): SecPKCS12Import cannot read '\(file)' (\(error)), \(without)"))
        }
    }

    /// The client-certificate challenge when the app has no identity to answer with.
    public static let noClientIdentity = TraceStep(
        .clientCertificate, .note, "the server asked for a client certificate and the app has no identity to answer with, so the request goes out without one")
}
