import Foundation
import PKI

/// An iOS app whose server-trust challenges TrustKit answers: `-[TSKPinningValidator handleChallenge:completionHandler:]`
/// (or the swizzled delegate, which calls it), deciding by `evaluateTrust:forHostname:` and `verifyPublicKeyPin`.
///
/// Apple's rules judge the chain: the connection's `serverTrust` keeps its platform and device trust store.
/// App Transport Security is not part of this model (see Docs/peers.md).
public struct TrustKitClient: InfoPlistPinnedClient, Equatable {
    /// The app's `TSKConfiguration`; nil when it pins no domain at all (every host gets URLSession's default handling).
    public var configuration: TrustKitConfiguration?
    /// The app's Info.plist `NSPinnedDomains`: every SSL policy for a covered host that the library's evaluations use carries them.
    public var infoPlistPins: InfoPlistPins
    /// True when the attacker's `trustKitValidator` hook replaces the validator's decision.
    public var validatorHooked = false
    /// True when the attacker's `secTrustEvaluate` hook patches the `SecTrustEvaluate` that `verifyPublicKeyPin` calls.
    public var secTrustEvaluateHooked = false

    public init(configuration: TrustKitConfiguration?, infoPlistPins: InfoPlistPins = InfoPlistPins()) {
        self.configuration = configuration
        self.infoPlistPins = infoPlistPins
    }

    /// TrustKit's decision on the connection's host (the protection space's host; `domain` is not used).
    public func evaluate(_ connection: PresentedConnection) -> PolicyEvaluation {
        let connection = infoPlistPins.applied(to: connection)
        let host = connection.host
        var trace = Trace(secTrustEvaluateHooked: secTrustEvaluateHooked)
        // NSString *domainConfigKey = getPinningConfigurationKeyForDomain(serverHostname, self.domainPinningPolicies);
        guard let configuration else {
            trace.add(.trustKitPolicyLookup, .note, "the app's TrustKit configuration pins no domain: TSKTrustDecisionDomainNotPinned")
            return defaultHandling(connection, trace: &trace)
        }
        guard let key = configuration.policyKey(forHost: host), let policy = configuration.pinnedDomains[key] else {
            trace.add(
                .trustKitPolicyLookup, .note,
                "no TSKPinnedDomains entry is '\(host)', and no entry with TSKIncludeSubdomains YES is a parent of it: TSKTrustDecisionDomainNotPinned")
            return defaultHandling(connection, trace: &trace)
        }
        let found =
            key == host
            ? "'\(host)' has its own TSKPinnedDomains entry"
            : "'\(host)' has no TSKPinnedDomains entry of its own; '\(key)' has TSKIncludeSubdomains YES "
                + "and is its longest parent that has"
        // else if ([domainConfig[kTSKExcludeSubdomainFromParentPolicy] boolValue]) { finalTrustDecision = TSKTrustDecisionDomainNotPinned; }
        if policy.excludeSubdomainFromParentPolicy {
            trace.add(
                .trustKitPolicyLookup, .note,
                "\(found), with TSKExcludeSubdomainFromParentPolicy YES: it is left out of its parent's policy, TSKTrustDecisionDomainNotPinned")
            return defaultHandling(connection, trace: &trace)
        }
        trace.add(.trustKitPolicyLookup, .note, "\(found): \(Self.summary(policy))")

        // if (expirationDate != nil && [expirationDate compare:[NSDate date]] == NSOrderedAscending) { … DomainNotPinned }
        let now = connection.serverTrust.verifyDate
        switch (policy.expirationDate, policy.expiration) {
        case (nil, _):
            trace.add(.trustKitPolicyExpiration, .skipped, "the policy has no TSKExpirationDate, so it never expires")
        case (let written?, nil):
            trace.add(
                .trustKitPolicyExpiration, .skipped,
                "TSKExpirationDate '\(TerminalText.escaped(written))' is not a yyyy-MM-dd date, so TrustKit reads none and the policy never expires")
        case (let written?, let expiration?) where expiration < now:
            trace.add(
                .trustKitPolicyExpiration, .note,
                "the policy expired at the start of \(written) (UTC) and it is now \(Self.day(now)): TSKTrustDecisionDomainNotPinned, "
                    + "so the pins are not checked at all")
            return defaultHandling(connection, trace: &trace)
        case (let written?, _):
            trace.add(.trustKitPolicyExpiration, .passed, "the policy expires at the start of \(written) (UTC) and it is now \(Self.day(now)), so it applies")
        }

        // SecPolicyRef SslPolicy = SecPolicyCreateSSL(YES, (__bridge CFStringRef)(serverHostname)); SecTrustSetPolicies(serverTrust, SslPolicy);
        // if ((trustResult != kSecTrustResultUnspecified) && (trustResult != kSecTrustResultProceed)) { return TSKTrustEvaluationFailedInvalidCertificateChain; }
        var trust = connection.serverTrust
        trust.policy = .ssl(host: host)
        let result = trust.evaluate()
        let type = IOSClient.resultType(result)
        if let failure = result.reason {
            let evenReportOnly = policy.enforcePinning ? "" : " (even though TSKEnforcePinning is NO: report-only covers pins, not an invalid chain)"
            trace.add(
                .trustKitChainValidation, .failed,
                "TrustKit sets SecPolicyCreateSSL(YES, '\(host)') and evaluates the chain against the device trust store, which does not trust it "
                    + "(SecTrustEvaluate: \(type), neither kSecTrustResultUnspecified nor kSecTrustResultProceed): \(SecurityPolicy.failures(result)). TSKTrustEvaluationFailedInvalidCertificateChain blocks the connection\(evenReportOnly)"
            )
            guard trace.read(result, by: .trustKit).isValid else { return block(trace: &trace, reason: .untrustedChain(failure), path: result.path) }
            return matchPins(policy, key: key, path: result.path, trace: &trace)
        }
        trace.add(
            .trustKitChainValidation, .passed,
            "TrustKit sets SecPolicyCreateSSL(YES, '\(host)') and the device trust store trusts the chain (SecTrustEvaluate: \(type)): path \(result.path.pathDescription)"
                + SecurityPolicy.anchorClause(result))
        trace.read(result, by: .trustKit)
        return matchPins(policy, key: key, path: result.path, trace: &trace)
    }

    // MARK: - The pins

    /// `verifyPublicKeyPin`'s walk: each certificate of the evaluated path from the root down to the leaf,
    /// its SPKI hashed as TrustKit's `TSKSPKIHashCache` does, the first pinned hash allowing the connection.
    private func matchPins(_ policy: TrustKitDomainPolicy, key: String, path: [Certificate], trace: inout Trace) -> PolicyEvaluation {
        let pins = policy.pinnedHashes
        for certificate in path.reversed() {
            // TSKSPKIHashCache knows the ASN.1 header of these key types only; for any other it has no hash.
            guard Self.hashableKeys.contains(certificate.keyDescription) else {
                trace.add(
                    .trustKitPinMatch, .failed,
                    "walking the path \(path.pathDescription) from the root, TrustKit cannot hash the key of '\(certificate.label)' "
                        + "(\(certificate.keyDescription); it knows RSA 2048, 3072, 4096 and EC P-256, P-384): "
                        + "TSKTrustEvaluationErrorCouldNotGenerateSpkiHash blocks the connection")
                return block(trace: &trace, reason: .trustKitCouldNotGenerateSPKIHash, path: path)
            }
            if let hash = SPKIPin(base64: certificate.publicKeySHA256Base64), pins.contains(hash) {
                trace.add(
                    .trustKitPinMatch, .passed,
                    "walking the path \(path.pathDescription) from the root, the key of '\(certificate.label)' hashes to "
                        + "\(certificate.publicKeySHA256Base64), a pin of '\(key)': TSKTrustDecisionShouldAllowConnection")
                return allow(trace: &trace, path: path)
            }
        }
        let none = "none of the \(path.count) keys in the path \(path.pathDescription) hashes to a pin of '\(key)'"
        guard policy.enforcePinning else {
            trace.add(.trustKitPinMatch, .note, "\(none) (TSKTrustEvaluationFailedNoMatchingPin)")
            trace.add(
                .trustKitReportOnly, .passed,
                "TSKEnforcePinning is NO, so the policy is report-only: TrustKit allows the connection and only sends a pin failure report")
            return allow(trace: &trace, path: path)
        }
        trace.add(.trustKitPinMatch, .failed, "\(none), and TSKEnforcePinning is YES: TSKTrustDecisionShouldBlockConnection")
        return block(trace: &trace, reason: .trustKitNoMatchingPin, path: path)
    }

    /// The key types whose SPKI TrustKit can rebuild from the raw key (`TSKSPKIHashCache`'s ASN.1 headers).
    private static let hashableKeys: Set<String> = ["RSA 2048", "RSA 3072", "RSA 4096", "EC P-256", "EC P-384"]

    // MARK: - What handleChallenge answers

    func allow(trace: inout Trace, path: [Certificate]) -> PolicyEvaluation {
        if validatorHooked, trace.steps.last?.check != .trustKitValidatorHook {
            trace.add(
                .trustKitValidatorHook, .note,
                "hooked: \(RuntimeHook.trustKitValidator.target) returned TSKTrustDecisionShouldAllowConnection already, so the hook changes nothing")
        }
        trace.add(.challengeDisposition, .note, "TrustKit's handleChallenge answers UseCredential with credentialForTrust:")
        return trace.accept(path: path)
    }

    private func block(trace: inout Trace, reason: RejectionReason, path: [Certificate]) -> PolicyEvaluation {
        if validatorHooked { return hookedDecision("TSKTrustDecisionShouldBlockConnection", trace: &trace, path: path) }
        trace.add(
            .challengeDisposition, .note, "TrustKit's handleChallenge answers CancelAuthenticationChallenge: the task fails with \(NSURLError.cancelled)")
        return PolicyEvaluation(steps: trace.steps, path: path, rejection: reason, urlError: .cancelled)
    }

    /// TSKTrustDecisionDomainNotPinned: handleChallenge answers PerformDefaultHandling, and the system's own
    /// evaluation (SSL policy for the host, the device trust store) decides.
    private func defaultHandling(_ connection: PresentedConnection, trace: inout Trace) -> PolicyEvaluation {
        if validatorHooked { return hookedDecision("TSKTrustDecisionDomainNotPinned", trace: &trace, path: connection.serverTrust.certificates) }
        var trust = connection.serverTrust
        trust.policy = .ssl(host: connection.host)
        let result = trust.evaluate()
        let evaluation = "PerformDefaultHandling: the system's default evaluation (SSL policy for '\(connection.host)', the device trust store)"
        if let failure = result.reason {
            trace.add(
                .trustKitDefaultHandling, .failed,
                "\(evaluation) does not trust the chain (\(IOSClient.resultType(result))): \(SecurityPolicy.failures(result))")
            trace.noteSystemEvaluationUnhooked()
            trace.add(
                .challengeDisposition, .note, "the system refuses the chain, so the task fails with \(NSURLError.serverCertificateUntrusted)")
            return PolicyEvaluation(
                steps: trace.steps, path: result.path, rejection: .untrustedChain(failure), urlError: .serverCertificateUntrusted)
        }
        trace.add(
            .trustKitDefaultHandling, .passed,
            "\(evaluation) trusts the chain (\(IOSClient.resultType(result))): path \(result.path.pathDescription)\(SecurityPolicy.anchorClause(result))")
        trace.add(.challengeDisposition, .note, "the system trusts the chain, so the connection goes on")
        return trace.accept(path: result.path)
    }

    // MARK: - Sentences

    /// "2 pins, TSKIncludeSubdomains NO, TSKEnforcePinning YES".
    private static func summary(_ policy: TrustKitDomainPolicy) -> String {
        let count = policy.pinnedHashes.count
        return "\(count) pin\(count == 1 ? "" : "s"), TSKIncludeSubdomains \(policy.includeSubdomains ? "YES" : "NO"), "
            + "TSKEnforcePinning \(policy.enforcePinning ? "YES" : "NO")"
    }

    /// "2026-06-01": the UTC day of `date`.
    private static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }
}
