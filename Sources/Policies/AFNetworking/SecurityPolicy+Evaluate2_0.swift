import PKI

extension SecurityPolicy {
    /// AFNetworking 2.0.x: only `-evaluateServerTrust:` exists, so no domain and no policy of its own; pinning
    /// modes never evaluate the chain, so any pinned certificate (or key) in it is enough.
    func evaluateWithoutDomain(serverTrust: ServerTrust, forDomain domain: String?) -> PolicyEvaluation {
        var trace = Trace(secTrustEvaluateHooked: secTrustEvaluateHooked)
        // - (BOOL)evaluateServerTrust:(SecTrustRef)serverTrust   (no forDomain:, no SecTrustSetPolicies)
        let ignored = domain.map { " (the domain '\($0)' is not used)" } ?? ""
        let verdictUnused =
            SSLPinningMode == .none
            ? allowInvalidCertificates ? "But \(version.displayName) evaluates no chain with it when allowInvalidCertificates is YES in mode none" : nil
            : "But \(version.displayName) uses only the path that evaluating with it builds in pinning modes, never its verdict"
        trace.add(
            .policySelection, .note,
            Self.policySentence(
                "\(version.displayName) has only evaluateServerTrust:\(ignored) and sets no policy of its own, so the trust keeps CFNetwork's",
                serverTrust.policy, platform: serverTrust.platform, unused: verdictUnused))

        // case AFSSLPinningModeNone: return (self.allowInvalidCertificates || AFServerTrustIsValid(serverTrust));
        if SSLPinningMode == .none { return acceptWithoutPinning(trust: serverTrust, trace: &trace) }

        trace.add(
            .chainTrust, .skipped,
            "\(version.displayName) never checks the trust result in pinning modes, and allowInvalidCertificates "
                + "(\(allowInvalidCertificates ? "YES" : "NO")) plays no part in them")
        // AFCertificateTrustChainForServerTrust / AFPublicKeyTrustChainForServerTrust read the trust's chain.
        let path = serverTrust.evaluate().path
        switch SSLPinningMode {
        case .certificate:
            // for (NSData *trustChainCertificate in AFCertificateTrustChainForServerTrust(serverTrust)) {
            //     if ([self.pinnedCertificates containsObject:trustChainCertificate]) { return YES; } }
            trace.add(
                .pinnedAnchors, .skipped,
                "\(version.displayName) sets no anchors and uses no evaluation's verdict, so nothing checks that the chain ends at a "
                    + "trusted root, its dates or its host name (only the signatures linking the path are checked)")
            return recordPinnedCertificateMatch(in: path, from: path, pathNote: "", trace: &trace)
        case .publicKey:
            // for (id trustChainPublicKey in AFPublicKeyTrustChainForServerTrust(serverTrust)) { for (id pinnedPublicKey in self.pinnedPublicKeys) {
            //     if (AFSecKeyIsEqualToKey(…)) { return YES; } } }
            return evaluatePinnedPublicKeys(path: path, of: serverTrust, verdictUnused: true, trace: &trace)
        case .none:
            preconditionFailure("mode none returned above")
        }
    }
}
