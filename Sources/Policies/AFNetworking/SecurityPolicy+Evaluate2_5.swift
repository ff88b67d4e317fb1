import PKI

extension SecurityPolicy {
    /// AFNetworking 2.5.0–2.6: the policy is chosen as in 4.x, but pinning modes evaluate the chain before they
    /// read allowInvalidCertificates, certificate mode reads the chain before it sets the pinned anchors, and
    /// 2.5.x has `validatesCertificateChain`. Mode none differs per release (2.5.0: no host name by default;
    /// 2.5.1: no evaluation at all; 2.5.2 on: as 4.x).
    func evaluateSettingPolicies(serverTrust: ServerTrust, forDomain domain: String?) -> PolicyEvaluation {
        var trace = Trace(secTrustEvaluateHooked: secTrustEvaluateHooked)
        if version == .v2_6 {
            // 2.6.0 added the rule 4.x still has, word for word.
            if let rejection = applyDomainGuard(domain: domain, trace: &trace) { return rejection }
        } else {
            recordMissingDomainGuard(domain: domain, trace: &trace)
        }

        // if (self.validatesDomainName) { [policies addObject:SecPolicyCreateSSL(true, (__bridge CFStringRef)domain)]; }
        // else { [policies addObject:SecPolicyCreateBasicX509()]; }
        // SecTrustSetPolicies(serverTrust, (__bridge CFArrayRef)policies);
        var trust = serverTrust
        trust.policy = validatesDomainName ? .ssl(host: domain) : .basicX509
        trace.add(
            .policySelection, .note,
            Self.policySentence(chosenPolicyPrefix(domain: domain), trust.policy, platform: trust.platform, unused: unusedClauseWhenSettingPolicies))

        if SSLPinningMode == .none {
            switch version {
            case .v2_5_1:
                // if (self.SSLPinningMode != AFSSLPinningModeNone && !AFServerTrustIsValid(serverTrust) && !self.allowInvalidCertificates) { return NO; }
                // … switch (self.SSLPinningMode) { case AFSSLPinningModeNone: return YES;
                trace.add(
                    .modeNoneWithoutEvaluation, .passed,
                    "\(version.displayName): the pinning mode is none, so the policy returns YES without evaluating anything, whatever "
                        + "allowInvalidCertificates says (its validity check only applies to pinning modes)")
                return trace.accept(path: [])
            case .v2_5_0:
                // if (!AFServerTrustIsValid(serverTrust) && !self.allowInvalidCertificates) { return NO; }
                // … switch (self.SSLPinningMode) { case AFSSLPinningModeNone: return YES;
                let result = trust.evaluate()
                guard allowInvalidCertificates, !result.isValid else {
                    guard trace.recordDeviceTrust(result) else { return trace.reject(result) }
                    return trace.accept(path: result.path)
                }
                trace.add(
                    .allowInvalidOverride, .passed,
                    "\(version.displayName) evaluates the chain before it reads allowInvalidCertificates: the device trust store does not "
                        + "validate it (\(Self.deviceResultClause(result)): \(Self.failures(result))), but allowInvalidCertificates is YES and the pinning mode is none, so the "
                        + "chain is accepted")
                return trace.accept(path: result.path)
            default:
                // if (self.SSLPinningMode == AFSSLPinningModeNone) {
                //     if (self.allowInvalidCertificates || AFServerTrustIsValid(serverTrust)) { return YES; } else { return NO; } }
                return acceptWithoutPinning(trust: trust, trace: &trace)
            }
        }

        // } else if (!AFServerTrustIsValid(serverTrust) && !self.allowInvalidCertificates) { return NO; }
        let result = trust.evaluate()
        guard recordValidityBeforeAllowInvalid(result, trace: &trace) else { return trace.reject(result) }
        // NSArray *serverCertificates = AFCertificateTrustChainForServerTrust(serverTrust);
        let serverCertificates = result.path

        switch SSLPinningMode {
        case .certificate:
            // SecTrustSetAnchorCertificates(serverTrust, (__bridge CFArrayRef)pinnedCertificates);
            // if (!AFServerTrustIsValid(serverTrust)) { return NO; }
            let anchored = evaluateAgainstPinnedAnchors(trust: trust, firstEvaluation: false, trace: &trace)
            guard anchored.isValid else { return trace.reject(anchored) }
            if version == .v2_6 {
                // for (NSData *trustChainCertificate in serverCertificates) { if ([self.pinnedCertificates containsObject:…]) { trustedCertificateCount++; } }
                // return trustedCertificateCount > 0;
                return recordPinnedCertificateMatch(
                    in: serverCertificates, from: serverCertificates, pathNote: " (read before the pinned anchors were set)", trace: &trace)
            }
            guard validatesCertificateChain else {
                // if (!self.validatesCertificateChain) { return YES; }
                trace.add(
                    .pinnedCertificateMatch, .skipped,
                    "validatesCertificateChain is NO: \(version.displayName) accepts once the pinned anchors validate the chain, without "
                        + "looking for pinned certificates in it")
                return trace.accept(path: anchored.path)
            }
            if let rejection = checkPinnedCertificatesOfChain(serverCertificates, trace: &trace) {
                return trace.reject(rejection, path: serverCertificates)
            }
            return trace.accept(path: serverCertificates)
        case .publicKey:
            // NSArray *publicKeys = AFPublicKeyTrustChainForServerTrust(serverTrust);
            if version == .v2_6 {
                // … return trustedPublicKeyCount > 0;
                return evaluatePinnedPublicKeys(
                    path: serverCertificates, of: trust, verdictUnused: allowInvalidCertificates, trace: &trace)
            }
            recordNoPinnedAnchors(path: serverCertificates, of: trust, verdictUnused: allowInvalidCertificates, trace: &trace)
            if let rejection = checkPinnedPublicKeysOfChain(serverCertificates, trace: &trace) {
                return trace.reject(rejection, path: serverCertificates)
            }
            return trace.accept(path: serverCertificates)
        case .none:
            preconditionFailure("mode none returned above")
        }
    }

    /// Why no decision rests on the chosen policy in 2.5.0–2.6, or nil when one does.
    private var unusedClauseWhenSettingPolicies: String? {
        switch (SSLPinningMode, allowInvalidCertificates) {
        case (.none, _) where version == .v2_5_1: "But \(version.displayName) evaluates no chain with it in mode none"
        case (.none, true) where version == .v2_5_0:
            "But \(version.displayName) does not use the verdict of evaluating with it when allowInvalidCertificates is YES in mode none"
        case (.none, true): "But \(version.displayName) evaluates no chain with it when allowInvalidCertificates is YES in mode none"
        case (.publicKey, true): Self.onlyThePathIsUsed(version)
        case (.none, false), (.publicKey, false), (.certificate, _): nil
        }
    }

    /// The clause for releases that evaluate the chain but, with allowInvalidCertificates YES, read only its path.
    static func onlyThePathIsUsed(_ version: AFNetworkingVersion) -> String {
        "But with allowInvalidCertificates YES, \(version.displayName) uses only the path that evaluating with it builds, never its verdict"
    }
}
