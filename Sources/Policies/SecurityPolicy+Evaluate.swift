import PKI

extension SecurityPolicy {
    /// AF: `-evaluateServerTrust:forDomain:`, transcribed branch by branch, each branch recorded as a step.
    ///
    /// The Objective-C it mirrors (AFNetworking 4.0.1, `AFSecurityPolicy.m`) is quoted above each step.
    /// `serverTrust` is taken by value: AF mutates the trust it is given; here the caller's copy is untouched.
    public func evaluate(serverTrust: ServerTrust, forDomain domain: String?) -> PolicyEvaluation {
        var trace = Trace()

        // if (domain && self.allowInvalidCertificates && self.validatesDomainName
        //     && (self.SSLPinningMode == AFSSLPinningModeNone || [self.pinnedCertificates count] == 0)) { … return NO; }
        if let domain, allowInvalidCertificates, validatesDomainName, SSLPinningMode == .none || pinnedCertificates.isEmpty {
            let pins = SSLPinningMode == .none ? "the pinning mode is none" : "no certificates are pinned"
            trace.add(
                .domainGuard, .failed,
                "In order to validate a domain name for self signed certificates, you MUST use pinning. (domain '\(domain)', "
                    + "allowInvalidCertificates YES, validatesDomainName YES, and \(pins))")
            return trace.reject(.contradictorySettings, path: [])
        }
        trace.add(.domainGuard, .passed, domainGuardPassReason(domain: domain))

        // policy = validatesDomainName ? SecPolicyCreateSSL(true, domain) : SecPolicyCreateBasicX509();
        // SecTrustSetPolicies(serverTrust, policies);
        var trust = serverTrust
        trust.policy = validatesDomainName ? .ssl(host: domain) : .basicX509
        trace.add(.policySelection, .note, policySelectionReason(domain: domain))

        // if (self.SSLPinningMode == AFSSLPinningModeNone) {
        //     return self.allowInvalidCertificates || AFServerTrustIsValid(serverTrust); }
        if SSLPinningMode == .none {
            if allowInvalidCertificates {
                trace.add(
                    .allowInvalidOverride, .passed,
                    "allowInvalidCertificates is YES and the pinning mode is none: the chain is accepted without being evaluated")
                return trace.accept(path: [])
            }
            let result = trust.evaluate()
            guard trace.recordDeviceTrust(result) else { return trace.reject(result) }
            return trace.accept(path: result.path)
        }

        // if (!self.allowInvalidCertificates && !AFServerTrustIsValid(serverTrust)) { return NO; }
        var deviceResult: TrustResult? = nil
        if allowInvalidCertificates {
            trace.add(
                .allowInvalidOverride, .note,
                "allowInvalidCertificates is YES: the device trust store's verdict is not used, pinning alone decides")
        } else {
            let result = trust.evaluate()
            guard trace.recordDeviceTrust(result) else { return trace.reject(result) }
            deviceResult = result
        }

        switch SSLPinningMode {
        case .certificate:
            return evaluatePinnedCertificates(trust: trust, trace: &trace)
        case .publicKey:
            // AFPublicKeyTrustChainForServerTrust reads the path of the trust as the step-2 policy left it.
            return evaluatePinnedPublicKeys(path: (deviceResult ?? trust.evaluate()).path, trace: &trace)
        case .none:
            preconditionFailure("mode none returned above")
        }
    }

    // MARK: - Step 5, certificate mode

    private func evaluatePinnedCertificates(trust: ServerTrust, trace: inout Trace) -> PolicyEvaluation {
        // SecTrustSetAnchorCertificates(serverTrust, pinnedCertificates);
        // if (!AFServerTrustIsValid(serverTrust)) { return NO; }
        var anchored = trust
        let pinned = sortedPinnedCertificates
        anchored.setAnchorCertificates(pinned)
        let result = anchored.evaluate()
        // With allowInvalidCertificates NO, chainTrust evaluated the chain once already; with YES this is the first evaluation.
        let evaluated = allowInvalidCertificates ? "evaluated" : "re-evaluated"
        let anchors =
            pinned.isEmpty
            ? "\(evaluated) with no anchors at all, because no certificates are pinned"
            : pinned.count == 1
                ? "\(evaluated) with the pinned certificate \(Self.names(pinned)) as the only anchor"
                : "\(evaluated) with the pinned certificates \(Self.names(pinned)) as the only anchors"
        let evenIf = allowInvalidCertificates ? " (this runs even though allowInvalidCertificates is YES)" : ""
        guard result.isValid else {
            trace.add(.pinnedAnchors, .failed, "\(anchors)\(evenIf): not trusted because \(Self.failures(result))")
            return trace.reject(result)
        }
        trace.add(.pinnedAnchors, .passed, "\(anchors)\(evenIf): trusted, path \(result.path.pathDescription)\(Self.anchorClause(result))")

        // for (NSData *trustChainCertificate in [serverCertificates reverseObjectEnumerator]) {
        //     if ([self.pinnedCertificates containsObject:trustChainCertificate]) { return YES; } }
        // return NO;
        if let match = result.path.reversed().first(where: pinnedCertificates.contains) {
            trace.add(
                .pinnedCertificateMatch, .passed,
                "'\(match.label)' in the path \(result.path.pathDescription) is byte for byte a pinned certificate")
            return trace.accept(path: result.path)
        }
        trace.add(
            .pinnedCertificateMatch, .failed,
            "none of the \(result.path.count) certificates in the path \(result.path.pathDescription) is a pinned certificate")
        return trace.reject(.pinnedCertificateNotInPath, path: result.path)
    }

    // MARK: - Step 5, public-key mode

    private func evaluatePinnedPublicKeys(path: [Certificate], trace: inout Trace) -> PolicyEvaluation {
        trace.add(
            .pinnedAnchors, .skipped,
            allowInvalidCertificates
                ? "public-key pinning sets no anchors and uses no evaluation's verdict, so nothing checks that the chain ends at a trusted root, "
                    + "its dates or its host name (only the signatures linking the path are checked)"
                : "public-key pinning sets no anchors and does not evaluate the chain again")

        // for (id trustChainPublicKey in publicKeys) { for (id pinnedPublicKey in self.pinnedPublicKeys) {
        //     if (AFSecKeyIsEqualToKey(trustChainPublicKey, pinnedPublicKey)) { trustedPublicKeyCount += 1; } } }
        // return trustedPublicKeyCount > 0;
        let pinned = sortedPinnedCertificates
        guard !pinned.isEmpty else {
            trace.add(.pinnedPublicKeyMatch, .failed, "no certificates are pinned, so there is no public key to match")
            return trace.reject(.pinnedPublicKeyNotInPath, path: path)
        }
        let matches = path.compactMap { certificate in
            pinned.first { $0.publicKeyInfo == certificate.publicKeyInfo }.map { (certificate, $0) }
        }
        guard matches.isEmpty else {
            let list = matches.map { "'\($0.0.label)' has the key of pinned '\($0.1.label)'" }.joined(separator: "; ")
            trace.add(.pinnedPublicKeyMatch, .passed, "\(list) (path \(path.pathDescription))")
            return trace.accept(path: path)
        }
        trace.add(
            .pinnedPublicKeyMatch, .failed,
            "none of the \(path.count) public keys in the path \(path.pathDescription) is the key of "
                + "pinned \(Self.names(pinned))")
        return trace.reject(.pinnedPublicKeyNotInPath, path: path)
    }

    // MARK: - Sentences

    /// Pinned certificates in a stable order (a Set has none): by label, then by DER.
    private var sortedPinnedCertificates: [Certificate] {
        pinnedCertificates.sorted { $0.label != $1.label ? $0.label < $1.label : $0.der.lexicographicallyPrecedes($1.der) }
    }

    private func domainGuardPassReason(domain: String?) -> String {
        if domain == nil { return "the domain is nil, so the contradictory-settings rule does not apply" }
        if !allowInvalidCertificates { return "allowInvalidCertificates is NO, so the settings are not contradictory" }
        if !validatesDomainName { return "validatesDomainName is NO, so the settings are not contradictory" }
        return "allowInvalidCertificates and validatesDomainName are both YES, which AFNetworking allows only with "
            + "pinning: mode \(SSLPinningMode) with \(pinnedCertificates.count) pinned certificate\(pinnedCertificates.count == 1 ? "" : "s")"
    }

    private func policySelectionReason(domain: String?) -> String {
        let unused = unusedPolicyClause.map { ". \($0)" } ?? ""
        guard validatesDomainName else { return "validatesDomainName is NO: BasicX509 policy, the host name is never checked\(unused)" }
        guard let domain else {
            return "validatesDomainName is YES but the domain is nil: SSL policy without a host name, so no host name is checked\(unused)"
        }
        guard let unusedPolicyClause else {
            return "validatesDomainName is YES: SSL policy for host '\(domain)', which the leaf must name in its SAN"
        }
        return "validatesDomainName is YES: SSL policy for host '\(domain)'. \(unusedPolicyClause), so the host name is not checked"
    }

    /// Why no decision rests on the step-2 policy, or nil when one does (chainTrust or pinnedAnchors uses it).
    private var unusedPolicyClause: String? {
        guard allowInvalidCertificates else { return nil }
        switch SSLPinningMode {
        case .none: return "But allowInvalidCertificates is YES in mode none, so no chain is evaluated with it"
        case .publicKey:
            return "But with allowInvalidCertificates YES in public-key mode, only the path that evaluating with it builds is used, never its verdict"
        case .certificate: return nil
        }
    }

    static func names(_ certificates: [Certificate]) -> String {
        certificates.map { "'\($0.label)'" }.joined(separator: ", ")
    }

    /// ", ending at 'bank-root', a root built into iOS": which anchor decided, and where it is trusted from.
    static func anchorClause(_ result: TrustResult) -> String {
        result.anchorDescription.map { ", ending at \($0)" } ?? ""
    }

    static func failures(_ result: TrustResult) -> String {
        result.failures.map(\.description).joined(separator: "; ")
    }
}

/// Collects steps and builds the final `PolicyEvaluation`.
private struct Trace {
    var steps: [TraceStep] = []

    mutating func add(_ check: TraceStep.Check, _ outcome: TraceStep.Outcome, _ detail: String) {
        steps.append(TraceStep(check, outcome, detail))
    }

    /// Records AFServerTrustIsValid against the device trust store; returns whether it held.
    mutating func recordDeviceTrust(_ result: TrustResult) -> Bool {
        if result.isValid {
            add(.chainTrust, .passed, "the device trust store validates the chain: path \(result.path.pathDescription)\(SecurityPolicy.anchorClause(result))")
        } else {
            add(.chainTrust, .failed, "the device trust store does not validate the chain: \(SecurityPolicy.failures(result))")
        }
        return result.isValid
    }

    func accept(path: [Certificate]) -> PolicyEvaluation {
        PolicyEvaluation(steps: steps, path: path, rejection: nil)
    }

    func reject(_ reason: RejectionReason, path: [Certificate]) -> PolicyEvaluation {
        PolicyEvaluation(steps: steps, path: path, rejection: reason)
    }

    func reject(_ result: TrustResult) -> PolicyEvaluation {
        // A failed evaluation always carries at least one failure.
        reject(.untrustedChain(result.reason!), path: result.path)
    }
}
