import PKI

extension SecurityPolicy {
    /// AFNetworking 2.1.0 and 2.2.0: no policy of their own (the trust keeps CFNetwork's), no anchors, and
    /// `validatesCertificateChain`. 2.1.0 requires a valid chain in pinning modes; 2.2.0 lets
    /// allowInvalidCertificates skip that and then compares the leaf's common name with the domain.
    func evaluateWithCFNetworkPolicy(serverTrust: ServerTrust, forDomain domain: String?) -> PolicyEvaluation {
        var trace = Trace(secTrustEvaluateHooked: secTrustEvaluateHooked)
        recordMissingDomainGuard(domain: domain, trace: &trace)
        // No SecTrustSetPolicies: the trust is evaluated as the challenge handed it over.
        trace.add(
            .policySelection, .note,
            Self.policySentence(
                "\(version.displayName) sets no policy of its own, whatever validatesDomainName says, so the trust keeps CFNetwork's",
                serverTrust.policy, platform: serverTrust.platform, unused: unusedClauseWithCFNetworkPolicy))

        // if (self.SSLPinningMode == AFSSLPinningModeNone && self.allowInvalidCertificates) { return YES; }
        // if (!AFServerTrustIsValid(serverTrust)) { return NO; }  (2.2.0: … && !self.allowInvalidCertificates)
        // … switch (self.SSLPinningMode) { case AFSSLPinningModeNone: return YES;
        if SSLPinningMode == .none { return acceptWithoutPinning(trust: serverTrust, trace: &trace) }

        let result = serverTrust.evaluate()
        if version == .v2_1, !result.isValid, allowInvalidCertificates {
            trace.add(
                .chainTrust, .failed,
                "the device trust store does not validate the chain (\(Self.deviceResultClause(result))): \(Self.failures(result)) (\(version.displayName) requires a valid "
                    + "chain in pinning modes: allowInvalidCertificates YES only matters in mode none)")
            guard trace.read(result, by: .afServerTrustIsValid).isValid else { return trace.reject(result) }
        } else if version == .v2_1 {
            guard trace.recordDeviceTrust(result) else { return trace.reject(result) }
        } else {
            guard recordValidityBeforeAllowInvalid(result, trace: &trace) else { return trace.reject(result) }
        }
        // NSArray *serverCertificates = AFCertificateTrustChainForServerTrust(serverTrust);
        let serverCertificates = result.path

        let rejection: RejectionReason?
        switch SSLPinningMode {
        case .certificate:
            trace.add(
                .pinnedAnchors, .skipped,
                "\(version.displayName) sets no anchors: the pinned certificates are only compared with the certificates of the path")
            rejection = checkPinnedCertificatesOfChain(serverCertificates, trace: &trace)
        case .publicKey:
            recordNoPinnedAnchors(
                path: serverCertificates, of: serverTrust, verdictUnused: version == .v2_2 && allowInvalidCertificates, trace: &trace)
            rejection = checkPinnedPublicKeysOfChain(serverCertificates, trace: &trace)
        case .none:
            preconditionFailure("mode none returned above")
        }
        if let rejection { return trace.reject(rejection, path: serverCertificates) }

        // if (shouldTrustServer && domain && self.validatesDomainName) {
        //     shouldTrustServer = AFCertificateHostMatchesDomain(SecCertificateCopySubjectSummary(…[serverCertificates firstObject]…), domain); }
        let leaf = serverCertificates[0]
        guard version == .v2_2 else {
            // 2.1.0 returns from every case of the switch, so this check is never reached.
            if domain != nil, validatesDomainName {
                trace.add(
                    .commonNameMatch, .skipped,
                    "\(version.displayName)'s common-name check comes after every return, so it never runs, whatever validatesDomainName says")
            }
            return trace.accept(path: serverCertificates)
        }
        guard let domain, validatesDomainName else {
            trace.add(
                .commonNameMatch, .skipped,
                validatesDomainName
                    ? "the domain is nil, so \(version.displayName) compares no host name with the leaf's subject summary"
                    : "validatesDomainName is NO, so \(version.displayName) compares no host name with the leaf's subject summary")
            return trace.accept(path: serverCertificates)
        }
        guard let summary = Self.subjectSummary(of: leaf) else {
            trace.add(
                .commonNameMatch, .failed,
                "the leaf '\(leaf.label)' has no common name, DNS name or organization, so it has no subject summary to compare with '\(domain)'")
            return trace.reject(.commonNameMismatch, path: serverCertificates)
        }
        let rule = "(compared label by label in lower case, '*' on either side matching any one label)"
        guard Self.certificateHost(summary, matchesDomain: domain) else {
            trace.add(
                .commonNameMatch, .failed,
                "the subject summary '\(summary)' of the leaf '\(leaf.label)' does not match the domain '\(domain)' \(rule)")
            return trace.reject(.commonNameMismatch, path: serverCertificates)
        }
        trace.add(
            .commonNameMatch, .passed, "the subject summary '\(summary)' of the leaf '\(leaf.label)' matches the domain '\(domain)' \(rule)")
        return trace.accept(path: serverCertificates)
    }

    /// Why no decision rests on CFNetwork's policy in 2.1.0 and 2.2.0, or nil when one does.
    private var unusedClauseWithCFNetworkPolicy: String? {
        guard allowInvalidCertificates else { return nil }
        if SSLPinningMode == .none { return "But \(version.displayName) evaluates no chain with it when allowInvalidCertificates is YES in mode none" }
        return version == .v2_2 ? Self.onlyThePathIsUsed(version) : nil
    }

    /// `SecCertificateCopySubjectSummary`: the subject's last common name, else (as iOS falls back) the first
    /// DNS name, then the organizational unit, then the organization. Email addresses come before DNS
    /// names on iOS; simulated certificates carry none.
    static func subjectSummary(of certificate: Certificate) -> String? {
        certificate.subject.commonName ?? certificate.dnsNames.first ?? certificate.subject.organizationalUnit
            ?? certificate.subject.organization
    }

    /// `AFCertificateHostMatchesDomain`: equal ignoring case, or as many labels with each pair equal or one of them "*".
    static func certificateHost(_ certificateHost: String, matchesDomain domain: String) -> Bool {
        let host = certificateHost.lowercased()
        let domain = domain.lowercased()
        if host == domain { return true }
        let hostLabels = host.split(separator: ".", omittingEmptySubsequences: false)
        let domainLabels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard hostLabels.count == domainLabels.count else { return false }
        return zip(hostLabels, domainLabels).allSatisfy { $0 == "*" || $1 == "*" || $0 == $1 }
    }
}
