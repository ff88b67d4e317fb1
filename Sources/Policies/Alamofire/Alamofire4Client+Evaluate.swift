import PKI

extension Alamofire4Client {
    /// Alamofire 4.9.1's `SessionDelegate.urlSession(_:didReceive:completionHandler:)` and
    /// `ServerTrustPolicy.evaluate(_:forHost:)`, transcribed branch by branch, each branch a step; the Swift it
    /// mirrors is quoted above each branch. Alamofire 4 has no error of its own here: a `false` cancels the
    /// challenge and the task fails with URLSession's NSURLErrorCancelled.
    public func evaluate(_ connection: PresentedConnection) -> PolicyEvaluation {
        let connection = infoPlistPins.applied(to: connection)
        let host = connection.host
        var trace = Trace(secTrustEvaluateHooked: secTrustEvaluateHooked)
        if challengeHooked {
            trace.add(
                .urlSessionChallengeHook, .passed,
                "hooked: \(RuntimeHook.urlSessionChallenge.target) → the completion handler gets UseCredential with credentialForTrust: "
                    + "for any chain: SessionDelegate's ServerTrustPolicyManager is never asked")
            trace.add(.challengeDisposition, .note, "UseCredential with credentialForTrust:, from the hook")
            AlamofireSessionDelegate.noteATS(connection.serverTrust, host: host, trace: &trace)
            return trace.accept(path: [])
        }
        // if let serverTrustPolicy = session.serverTrustPolicyManager?.serverTrustPolicy(forHost: host), … {
        // } — otherwise disposition stays .performDefaultHandling
        guard let manager = serverTrustPolicyManager, let policy = manager.policies[host] else {
            let missing =
                serverTrustPolicyManager == nil
                ? "the SessionManager has no ServerTrustPolicyManager"
                : "ServerTrustPolicyManager has no policy for '\(host)' (hosts match exactly)"
            let why = TraceStep(.alamofire4PolicyLookup, .note, "\(missing), so SessionDelegate leaves the disposition at performDefaultHandling")
            return AlamofireSessionDelegate.defaultHandling(connection.serverTrust, host: host, why: why, into: &trace)
        }
        trace.add(.alamofire4PolicyLookup, .note, "ServerTrustPolicyManager has a policy for exactly '\(host)': \(policy)")

        var trust = connection.serverTrust
        let (path, rejection) = Self.judge(policy, trust: &trust, host: host, trace: &trace)
        // if serverTrustPolicy.evaluate(serverTrust, forHost: host) { disposition = .useCredential; … }
        // else { disposition = .cancelAuthenticationChallenge }
        guard let rejection else { return AlamofireSessionDelegate.useCredential(connection.serverTrust, host: host, path: path, trace: &trace) }
        return AlamofireSessionDelegate.cancel(
            reason: rejection, path: path,
            error: "Alamofire 4 has no error of its own, so the request fails with URLSession's \(NSURLError.cancelled)", trace: &trace)
    }

    /// `ServerTrustPolicy.evaluate(_:forHost:)`: the chain it read, and why it said false (nil when it said true).
    private static func judge(
        _ policy: ServerTrustPolicy, trust: inout ServerTrust, host: String, trace: inout Trace
    ) -> ([Certificate], RejectionReason?) {
        switch policy {
        case .performDefaultEvaluation(let validateHost):
            // let policy = SecPolicyCreateSSL(true, validateHost ? host as CFString : nil)
            let result = trustIsValid(&trust, validateHost: validateHost, host: host, how: "", trace: &trace)
            return (result.path, result.reason.map(RejectionReason.untrustedChain))

        case .performRevokedEvaluation(let validateHost, let flags):
            // SecTrustSetPolicies(serverTrust, [defaultPolicy, revokedPolicy] as CFTypeRef)
            let result = trustIsValid(
                &trust, validateHost: validateHost, host: host, how: " and SecPolicyCreateRevocation(\(flags))", trace: &trace,
                revocation: flags)
            if let failure = result.reason { return (result.path, .untrustedChain(failure)) }
            // The revocation policy is one of the trust's policies, so the hooked SecTrustEvaluate answers for it too.
            return (result.path, flags.contains(.requirePositiveResponse) && !trace.secTrustEvaluateHooked ? .alamofireRevocationCheckFailed : nil)

        case .pinCertificates(let certificates, true, let validateHost):
            // SecTrustSetAnchorCertificates(serverTrust, pinnedCertificates as CFArray)
            // SecTrustSetAnchorCertificatesOnly(serverTrust, true)
            trust.setAnchorCertificates(certificates)
            let anchors =
                certificates.isEmpty
                ? " with no anchors at all, because no certificates are pinned"
                : " with the pinned \(SecurityPolicy.names(certificates)) as the only anchors (SecTrustSetAnchorCertificatesOnly); "
                    + "no certificate is compared byte for byte"
            let result = trustIsValid(&trust, validateHost: validateHost, host: host, how: anchors, trace: &trace)
            return (result.path, result.reason.map(RejectionReason.untrustedChain))

        case .pinCertificates(let certificates, false, let validateHost):
            trace.add(
                .alamofire4TrustEvaluation, .skipped,
                "validateCertificateChain is false: no evaluation, so nothing checks the chain's root, its dates or its host name"
                    + (validateHost ? " (validateHost is true but only used by an evaluation)" : ""))
            // for index in 0..<SecTrustGetCertificateCount(trust) { … SecTrustGetCertificateAtIndex(trust, index) … }
            let chain = trust.evaluate().path
            if let match = chain.first(where: certificates.contains) {
                trace.add(
                    .alamofire4CertificatePinning, .passed,
                    "'\(match.label)' in the trust's chain \(chain.pathDescription) is byte for byte a pinned certificate")
                return (chain, nil)
            }
            trace.add(
                .alamofire4CertificatePinning, .failed,
                certificates.isEmpty
                    ? "no certificates are pinned, so nothing in the trust's chain \(chain.pathDescription) can match"
                    : "none of the \(chain.count) certificates in the trust's chain \(chain.pathDescription) is byte for byte a pinned certificate "
                        + "(\(SecurityPolicy.names(certificates)))")
            return (chain, .pinnedCertificateNotInPath)

        case .pinPublicKeys(let keys, let validateCertificateChain, let validateHost):
            if validateCertificateChain {
                let result = trustIsValid(&trust, validateHost: validateHost, host: host, how: "", trace: &trace)
                guard let failure = result.reason else { return matchKeys(keys, chain: result.path, trace: &trace) }
                trace.add(.alamofire4PublicKeyPinning, .skipped, "certificateChainEvaluationPassed is false, so no key is compared")
                return (result.path, .untrustedChain(failure))
            }
            trace.add(
                .alamofire4TrustEvaluation, .skipped,
                "validateCertificateChain is false: no evaluation, so nothing checks the chain's root, its dates or its host name"
                    + (validateHost ? " (validateHost is true but only used by an evaluation)" : ""))
            return matchKeys(keys, chain: trust.evaluate().path, trace: &trace)

        case .disableEvaluation:
            trace.add(.alamofire4DisabledEvaluation, .passed, ".disableEvaluation: serverTrustIsValid = true, every chain is accepted, nothing is checked")
            return ([], nil)
        }
    }

    /// `trustIsValid`: one `SecTrustEvaluateWithError` with `SecPolicyCreateSSL(true, host or nil)`, plus the
    /// revocation policy when `revocation` is given (no responder is reachable: every status is unknown).
    private static func trustIsValid(
        _ trust: inout ServerTrust, validateHost: Bool, host: String, how: String, trace: inout Trace, revocation: RevocationOptions? = nil
    ) -> TrustResult {
        trust.policy = .ssl(host: validateHost ? host : nil)
        let result = trust.evaluate()
        let policy = validateHost ? "SecPolicyCreateSSL(true, \"\(host)\")" : "SecPolicyCreateSSL(true, nil), so no host name is checked,"
        let store = trust.hasCustomAnchors ? "" : " against the device trust store"
        let what = "trustIsValid evaluates with \(policy)\(how)\(store)"
        guard result.isValid, let revocation else {
            trace.add(.alamofire4TrustEvaluation, result.isValid ? .passed : .failed, "\(what): \(AlamofireSessionDelegate.verdict(result, of: trust))")
            return trace.read(result, by: .alamofire4TrustIsValid)
        }
        let unknown = "no CRL or OCSP responder is reachable in the simulation, so no certificate's revocation status is known"
        if revocation.contains(.requirePositiveResponse) {
            trace.add(
                .alamofire4TrustEvaluation, .failed,
                "\(what): the chain is \(AlamofireSessionDelegate.verdict(result, of: trust)); but \(unknown), and .requirePositiveResponse makes an unknown status fail"
            )
        } else {
            trace.add(
                .alamofire4TrustEvaluation, .passed,
                "\(what): \(AlamofireSessionDelegate.verdict(result, of: trust)); \(unknown), and without .requirePositiveResponse an unknown status passes")
        }
        return trace.read(result, by: .alamofire4TrustIsValid)
    }

    /// `ServerTrustPolicy.publicKeys(for: serverTrust)` against the pinned keys: the keys of the chain the trust built.
    private static func matchKeys(_ keys: [Certificate], chain: [Certificate], trace: inout Trace) -> ([Certificate], RejectionReason?) {
        // outerLoop: for serverPublicKey in … { for pinnedPublicKey in pinnedPublicKeys { if serverPublicKey.isEqual(pinnedPublicKey) { … } } }
        let matches = chain.compactMap { certificate in keys.first { $0.publicKeyInfo == certificate.publicKeyInfo }.map { (certificate, $0) } }
        guard matches.isEmpty else {
            trace.add(.alamofire4PublicKeyPinning, .passed, "\(SecurityPolicy.keyMatches(matches)) (the trust's chain \(chain.pathDescription))")
            return (chain, nil)
        }
        trace.add(
            .alamofire4PublicKeyPinning, .failed,
            keys.isEmpty
                ? "\(SecurityPolicy.noPinnedKeys) in the trust's chain \(chain.pathDescription)"
                : "none of the \(chain.count) public keys in the trust's chain \(chain.pathDescription) is the key of pinned \(SecurityPolicy.names(keys))")
        return (chain, .pinnedPublicKeyNotInPath)
    }
}
