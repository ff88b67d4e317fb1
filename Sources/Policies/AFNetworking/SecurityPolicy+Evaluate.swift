import PKI

extension SecurityPolicy {
    /// AF: `-evaluateServerTrust:forDomain:` of the release `version` names, transcribed branch by branch,
    /// each branch recorded as a step.
    ///
    /// The Objective-C it mirrors is quoted above each step: AFNetworking 4.0.1's here, the older releases'
    /// in `SecurityPolicy+Evaluate2_5.swift`, `+Evaluate2_1.swift` and `+Evaluate2_0.swift`.
    /// `serverTrust` is taken by value: AF mutates the trust it is given; here the caller's copy is untouched.
    public func evaluate(serverTrust: ServerTrust, forDomain domain: String?) -> PolicyEvaluation {
        switch version {
        case .v4, .v3_1, .v3_0: evaluate4(serverTrust: serverTrust, forDomain: domain)
        case .v2_6, .v2_5_3, .v2_5_2, .v2_5_1, .v2_5_0: evaluateSettingPolicies(serverTrust: serverTrust, forDomain: domain)
        case .v2_2, .v2_1: evaluateWithCFNetworkPolicy(serverTrust: serverTrust, forDomain: domain)
        case .v2_0: evaluateWithoutDomain(serverTrust: serverTrust, forDomain: domain)
        }
    }

    /// AFNetworking 4.0.1, 4.0.0 and 3.x: 3.x only evaluates the chain before reading allowInvalidCertificates.
    private func evaluate4(serverTrust: ServerTrust, forDomain domain: String?) -> PolicyEvaluation {
        var trace = Trace(secTrustEvaluateHooked: secTrustEvaluateHooked)

        if let rejection = applyDomainGuard(domain: domain, trace: &trace) { return rejection }

        // policy = validatesDomainName ? SecPolicyCreateSSL(true, domain) : SecPolicyCreateBasicX509();
        // SecTrustSetPolicies(serverTrust, policies);
        var trust = serverTrust
        trust.policy = validatesDomainName ? .ssl(host: domain) : .basicX509
        trace.add(.policySelection, .note, policySelectionReason(domain: domain, platform: serverTrust.platform))

        // if (self.SSLPinningMode == AFSSLPinningModeNone) {
        //     return self.allowInvalidCertificates || AFServerTrustIsValid(serverTrust); }
        if SSLPinningMode == .none { return acceptWithoutPinning(trust: trust, trace: &trace) }

        // if (!self.allowInvalidCertificates && !AFServerTrustIsValid(serverTrust)) { return NO; }
        // 3.x: if (!AFServerTrustIsValid(serverTrust) && !self.allowInvalidCertificates) { return NO; }
        var deviceResult: TrustResult? = nil
        if version.evaluatesBeforeReadingAllowInvalid {
            let result = trust.evaluate()
            guard recordValidityBeforeAllowInvalid(result, trace: &trace) else { return trace.reject(result) }
            deviceResult = result
        } else if allowInvalidCertificates {
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
            return evaluatePinnedCertificates(trust: trust, firstEvaluation: deviceResult == nil, trace: &trace)
        case .publicKey:
            // AFPublicKeyTrustChainForServerTrust reads the path of the trust as the step-2 policy left it.
            return evaluatePinnedPublicKeys(
                path: (deviceResult ?? trust.evaluate()).path, of: trust, verdictUnused: allowInvalidCertificates, trace: &trace)
        case .none:
            preconditionFailure("mode none returned above")
        }
    }

    // MARK: - Steps 1 and 4, shared with the releases that have them

    /// Step 1 (4.x, 2.6): the contradictory-settings rule; the rejection when it fires, nil when evaluation goes on.
    func applyDomainGuard(domain: String?, trace: inout Trace) -> PolicyEvaluation? {
        // if (domain && self.allowInvalidCertificates && self.validatesDomainName
        //     && (self.SSLPinningMode == AFSSLPinningModeNone || [self.pinnedCertificates count] == 0)) { … return NO; }
        if let domain, allowInvalidCertificates, validatesDomainName, SSLPinningMode == .none || pinnedCertificates.isEmpty {
            trace.add(
                .domainGuard, .failed,
                "In order to validate a domain name for self signed certificates, you MUST use pinning. (domain '\(domain)', "
                    + "allowInvalidCertificates YES, validatesDomainName YES, and \(contradictionPins))")
            return trace.reject(.contradictorySettings, path: [])
        }
        trace.add(.domainGuard, .passed, domainGuardPassReason(domain: domain))
        return nil
    }

    /// Which half of the contradictory settings holds: no pinning mode, or no pins.
    var contradictionPins: String { SSLPinningMode == .none ? "the pinning mode is none" : "no certificates are pinned" }

    /// Mode none as 4.x, 2.6–2.5.2, 2.2.0, 2.1.0 and 2.0 decide it: `allowInvalidCertificates || AFServerTrustIsValid(serverTrust)`.
    func acceptWithoutPinning(trust: ServerTrust, trace: inout Trace) -> PolicyEvaluation {
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

    // MARK: - Step 5, certificate mode

    /// `firstEvaluation`: no chainTrust evaluation ran before (allowInvalidCertificates YES, in 4.x).
    private func evaluatePinnedCertificates(trust: ServerTrust, firstEvaluation: Bool, trace: inout Trace) -> PolicyEvaluation {
        let result = evaluateAgainstPinnedAnchors(trust: trust, firstEvaluation: firstEvaluation, trace: &trace)
        guard result.isValid else { return trace.reject(result) }

        // for (NSData *trustChainCertificate in [serverCertificates reverseObjectEnumerator]) {
        //     if ([self.pinnedCertificates containsObject:trustChainCertificate]) { return YES; } }
        // return NO;
        return recordPinnedCertificateMatch(in: result.path, from: result.path.reversed(), pathNote: "", trace: &trace)
    }

    /// `SecTrustSetAnchorCertificates(serverTrust, pinnedCertificates)` then `AFServerTrustIsValid`, recorded as pinnedAnchors.
    func evaluateAgainstPinnedAnchors(trust: ServerTrust, firstEvaluation: Bool, trace: inout Trace) -> TrustResult {
        var anchored = trust
        let pinned = sortedPinnedCertificates
        anchored.setAnchorCertificates(pinned)
        let result = anchored.evaluate()
        // SecTrustSetAnchorCertificates turns SecTrustSetAnchorCertificatesOnly on: the device's roots stop counting.
        let only = " (it turns SecTrustSetAnchorCertificatesOnly on) and the chain is \(firstEvaluation ? "evaluated" : "re-evaluated")"
        let anchors =
            pinned.isEmpty
            ? "SecTrustSetAnchorCertificates with no certificates, because none are pinned, leaves no anchor at all\(only)"
            : pinned.count == 1
                ? "SecTrustSetAnchorCertificates makes the pinned certificate \(Self.names(pinned)) the only anchor\(only)"
                : "SecTrustSetAnchorCertificates makes the pinned certificates \(Self.names(pinned)) the only anchors\(only)"
        let evenIf = allowInvalidCertificates ? ", even though allowInvalidCertificates is YES" : ""
        let type = Self.resultClause(ServerTrust.ResultType(result, anchorsOnly: true))
        if result.isValid {
            trace.add(
                .pinnedAnchors, .passed, "\(anchors)\(evenIf): trusted (\(type)), path \(result.path.pathDescription)\(Self.anchorClause(result))")
        } else {
            trace.add(.pinnedAnchors, .failed, "\(anchors)\(evenIf): not trusted (\(type)) because \(Self.failures(result))")
        }
        return trace.read(result, by: .afServerTrustIsValid)
    }

    /// Some certificate of `path`, searched in `order`, is byte-equal to a pinned one: YES, else NO.
    /// `pathNote` follows the path's description (" (read before the pinned anchors were set)" for 2.6).
    func recordPinnedCertificateMatch(
        in path: [Certificate], from order: some Sequence<Certificate>, pathNote: String, trace: inout Trace
    ) -> PolicyEvaluation {
        if let match = order.first(where: pinnedCertificates.contains) {
            trace.add(
                .pinnedCertificateMatch, .passed, "'\(match.label)' in the path \(path.pathDescription)\(pathNote) is byte for byte a pinned certificate")
            return trace.accept(path: path)
        }
        trace.add(
            .pinnedCertificateMatch, .failed,
            "none of the \(path.count) certificates in the path \(path.pathDescription)\(pathNote) is a pinned certificate")
        return trace.reject(.pinnedCertificateNotInPath, path: path)
    }

    // MARK: - Step 5, public-key mode

    /// Any key of `path` (the path `trust` builds) is a pinned certificate's key (4.x, 2.6, 2.0). `verdictUnused`: no
    /// evaluation's verdict was required before, so nothing but the path's signatures was checked.
    func evaluatePinnedPublicKeys(path: [Certificate], of trust: ServerTrust, verdictUnused: Bool, trace: inout Trace) -> PolicyEvaluation {
        recordNoPinnedAnchors(path: path, of: trust, verdictUnused: verdictUnused, trace: &trace)

        // for (id trustChainPublicKey in publicKeys) { for (id pinnedPublicKey in self.pinnedPublicKeys) {
        //     if (AFSecKeyIsEqualToKey(trustChainPublicKey, pinnedPublicKey)) { trustedPublicKeyCount += 1; } } }
        // return trustedPublicKeyCount > 0;
        let pinned = sortedPinnedCertificates
        guard !pinned.isEmpty else {
            trace.add(.pinnedPublicKeyMatch, .failed, Self.noPinnedKeys)
            return trace.reject(.pinnedPublicKeyNotInPath, path: path)
        }
        let matches = path.compactMap { certificate in
            pinned.first { $0.publicKeyInfo == certificate.publicKeyInfo }.map { (certificate, $0) }
        }
        guard matches.isEmpty else {
            trace.add(.pinnedPublicKeyMatch, .passed, "\(Self.keyMatches(matches)) (path \(path.pathDescription))")
            return trace.accept(path: path)
        }
        trace.add(
            .pinnedPublicKeyMatch, .failed,
            "none of the \(path.count) public keys in the path \(path.pathDescription) is the key of "
                + "pinned \(Self.names(pinned))")
        return trace.reject(.pinnedPublicKeyNotInPath, path: path)
    }

    /// The pinnedAnchors step of public-key mode, which sets no anchors but evaluates each certificate of `path`
    /// (the path `trust` builds) alone to read its key.
    func recordNoPinnedAnchors(path: [Certificate], of trust: ServerTrust, verdictUnused: Bool, trace: inout Trace) {
        let setsNoAnchors =
            verdictUnused
            ? "public-key pinning sets no anchors and uses no evaluation's verdict, so nothing checks that the chain ends at a trusted root, "
                + "its dates or its host name (only the signatures linking the path are checked)"
            : "public-key pinning sets no anchors and does not evaluate the chain again as a whole"
        trace.add(.pinnedAnchors, .skipped, "\(setsNoAnchors). \(Self.keyReadingEvaluations(of: path, like: trust))")
    }

    /// AFPublicKeyTrustChainForServerTrust, every release: each certificate in a trust of its own
    /// (`SecTrustCreateWithCertificates` with `SecPolicyCreateBasicX509()`, the device's anchors), evaluated so that
    /// `SecTrustCopyPublicKey` can read its key, the result never looked at.
    static func keyReadingEvaluations(of path: [Certificate], like trust: ServerTrust) -> String {
        let results = path.map { certificate in
            let alone = ServerTrust(
                certificates: [certificate], deviceTrustStore: trust.deviceTrustStore, policy: .basicX509, verifyDate: trust.verifyDate,
                platform: trust.platform)
            return "'\(certificate.label)': \(ServerTrust.ResultType(alone.evaluate(), anchorsOnly: false).rawValue)"
        }
        return "To read the keys, AFPublicKeyTrustChainForServerTrust evaluates each certificate of the path alone (a trust of its own, "
            + "BasicX509 policy, SecTrustEvaluate) and ignores the result (\(results.joined(separator: ", "))): SecTrustCopyPublicKey "
            + "reads each key whatever the result, an untrusted self-signed certificate's included"
    }

    // MARK: - Sentences

    static let noPinnedKeys = "no certificates are pinned, so there is no public key to match"

    /// "'bank.test' has the key of pinned 'bank-leaf.cer'; …".
    static func keyMatches(_ matches: [(Certificate, Certificate)]) -> String {
        matches.map { "'\($0.0.label)' has the key of pinned '\($0.1.label)'" }.joined(separator: "; ")
    }

    /// Pinned certificates in a stable order (a Set has none): by label, then by DER.
    var sortedPinnedCertificates: [Certificate] {
        pinnedCertificates.sorted { $0.label != $1.label ? $0.label < $1.label : $0.der.lexicographicallyPrecedes($1.der) }
    }

    private func domainGuardPassReason(domain: String?) -> String {
        if domain == nil { return "the domain is nil, so the contradictory-settings rule does not apply" }
        if !allowInvalidCertificates { return "allowInvalidCertificates is NO, so the settings are not contradictory" }
        if !validatesDomainName { return "validatesDomainName is NO, so the settings are not contradictory" }
        return "allowInvalidCertificates and validatesDomainName are both YES, which AFNetworking allows only with "
            + "pinning: mode \(SSLPinningMode) with \(pinnedCertificates.count) pinned certificate\(pinnedCertificates.count == 1 ? "" : "s")"
    }

    private func policySelectionReason(domain: String?, platform: Platform) -> String {
        Self.policySentence(
            chosenPolicyPrefix(domain: domain), validatesDomainName ? .ssl(host: domain) : .basicX509, platform: platform, unused: unusedPolicyClause)
    }

    /// Why step 2 chose its policy: "validatesDomainName is YES but the domain is nil".
    func chosenPolicyPrefix(domain: String?) -> String {
        !validatesDomainName ? "validatesDomainName is NO" : domain == nil ? "validatesDomainName is YES but the domain is nil" : "validatesDomainName is YES"
    }

    /// "PREFIX: SSL policy for host 'bank.test', which the leaf must name in its SAN" (where `platform` reads
    /// it, or in its common name), followed by `unused`, the clause that says why no decision rests on that
    /// policy, when none does.
    static func policySentence(_ prefix: String, _ policy: ServerTrust.Policy, platform: Platform, unused: String?) -> String {
        let tail = unused.map { ". \($0)" } ?? ""
        switch policy {
        case .basicX509: return "\(prefix): BasicX509 policy, the host name is never checked\(tail)"
        case .ssl(host: nil): return "\(prefix): SSL policy without a host name, so no host name is checked\(tail)"
        case .ssl(host: let host?):
            let commonName = platform.readsCommonName ? " (on iOS 12, in its common name when the SAN has no DNS name)" : ""
            guard let unused else { return "\(prefix): SSL policy for host '\(host)', which the leaf must name in its SAN\(commonName)" }
            return "\(prefix): SSL policy for host '\(host)'. \(unused), so the host name is not checked"
        }
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

    /// "SecTrustEvaluate: kSecTrustResultUnspecified, which AFServerTrustIsValid accepts": the result type beside a verdict.
    static func resultClause(_ type: ServerTrust.ResultType) -> String {
        let accepts = type == .unspecified || type == .proceed
        return "SecTrustEvaluate: \(type.rawValue), which AFServerTrustIsValid \(accepts ? "accepts" : "refuses")"
    }

    /// The result clause of an evaluation against the device's own anchors (no SecTrustSetAnchorCertificates).
    static func deviceResultClause(_ result: TrustResult) -> String {
        resultClause(ServerTrust.ResultType(result, anchorsOnly: false))
    }

    static func failures(_ result: TrustResult) -> String {
        result.failures.map(\.description).joined(separator: "; ")
    }
}

/// Collects steps and builds the final `PolicyEvaluation` (every release's procedure uses it).
struct Trace {
    var steps: [TraceStep] = []
    /// True when the attacker's `secTrustEvaluate` hook patches the evaluations the app's code makes (`read(_:by:)`).
    var secTrustEvaluateHooked = false

    mutating func add(_ check: TraceStep.Check, _ outcome: TraceStep.Outcome, _ detail: String) {
        steps.append(TraceStep(check, outcome, detail))
    }

    /// Records AFServerTrustIsValid against the device trust store; returns whether it held (for the app, with the hook).
    mutating func recordDeviceTrust(_ result: TrustResult) -> Bool {
        let type = SecurityPolicy.deviceResultClause(result)
        if result.isValid {
            add(
                .chainTrust, .passed,
                "the device trust store validates the chain (\(type)): path \(result.path.pathDescription)\(SecurityPolicy.anchorClause(result))")
        } else if result.failsOnlyItsPins {
            add(
                .chainTrust, .failed,
                "the path \(result.path.pathDescription) ends at an anchor of the device trust store, but the SSL policy's NSPinnedDomains check fails it (\(type)): "
                    + SecurityPolicy.failures(result))
        } else {
            add(.chainTrust, .failed, "the device trust store does not validate the chain (\(type)): \(SecurityPolicy.failures(result))")
        }
        return read(result, by: .afServerTrustIsValid).isValid
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
