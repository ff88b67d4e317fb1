import PKI

/// Branches several AFNetworking 2.x releases share, each recorded with the sentence that names the release.
extension SecurityPolicy {
    /// Before 2.6 there is no contradictory-settings rule: said only when 4.x's rule would have refused.
    func recordMissingDomainGuard(domain: String?, trace: inout Trace) {
        guard domain != nil, allowInvalidCertificates, validatesDomainName, SSLPinningMode == .none || pinnedCertificates.isEmpty else { return }
        trace.add(
            .domainGuard, .skipped,
            "\(version.displayName) has no contradictory-settings rule (2.6 added it): allowInvalidCertificates and validatesDomainName "
                + "are both YES and \(contradictionPins), yet evaluation goes on")
    }

    /// 2.2.0–2.6 and 3.0.0–3.2.1 in pinning modes: `!AFServerTrustIsValid(serverTrust) && !self.allowInvalidCertificates`, which
    /// evaluates the chain before it reads allowInvalidCertificates. Returns whether evaluation goes on.
    func recordValidityBeforeAllowInvalid(_ result: TrustResult, trace: inout Trace) -> Bool {
        guard allowInvalidCertificates else { return trace.recordDeviceTrust(result) }
        let verdict =
            result.isValid
            ? "the device trust store validates it (\(Self.deviceResultClause(result)); path \(result.path.pathDescription))"
            : "the device trust store does not validate it (\(Self.deviceResultClause(result)): \(Self.failures(result)))"
        trace.add(
            .allowInvalidOverride, .note,
            "\(version.displayName) evaluates the chain before it reads allowInvalidCertificates: \(verdict), but allowInvalidCertificates "
                + "is YES, so that verdict is not used and pinning alone decides")
        return true
    }

    // MARK: - validatesCertificateChain (2.1.0–2.5.3)

    /// Certificate mode: every certificate of `path` pinned (vCC YES), or the leaf pinned (vCC NO; 2.1.0 and
    /// 2.2.0 only, as 2.5.x accepts a chain the pinned anchors validate). Nil when the check held.
    func checkPinnedCertificatesOfChain(_ path: [Certificate], trace: inout Trace) -> RejectionReason? {
        guard validatesCertificateChain else {
            // return [self.pinnedCertificates containsObject:[serverCertificates firstObject]];
            let leaf = path[0]
            let pinned = pinnedCertificates.contains(leaf)
            trace.add(
                .pinnedCertificateMatch, pinned ? .passed : .failed,
                "validatesCertificateChain is NO, so only the leaf is compared: '\(leaf.label)' "
                    + (pinned ? "is byte for byte a pinned certificate" : "is not a pinned certificate"))
            return pinned ? nil : .leafCertificateNotPinned
        }
        // for (NSData *trustChainCertificate in serverCertificates) {
        //     if ([self.pinnedCertificates containsObject:trustChainCertificate]) { trustedCertificateCount++; } }
        // return trustedCertificateCount == [serverCertificates count];
        let unpinned = path.filter { !pinnedCertificates.contains($0) }
        guard unpinned.isEmpty else {
            trace.add(
                .everyCertificatePinned, .failed,
                "validatesCertificateChain is YES, so every certificate of the path \(path.pathDescription) must be pinned, and "
                    + "\(Self.names(unpinned)) \(unpinned.count == 1 ? "is" : "are") not")
            return .unpinnedCertificateInPath
        }
        trace.add(
            .everyCertificatePinned, .passed,
            path.count == 1
                ? "validatesCertificateChain is YES and the only certificate of the path, \(path.pathDescription), is pinned"
                : "validatesCertificateChain is YES and all \(path.count) certificates of the path \(path.pathDescription) are pinned")
        return nil
    }

    /// Public-key mode: `trustedPublicKeyCount` counts every (key of the path, pinned key) pair that is equal, one
    /// pinned key per pinned certificate; vCC YES needs that count to equal the path's length, vCC NO looks at
    /// the leaf's key alone and needs one match. Nil when the check held.
    func checkPinnedPublicKeysOfChain(_ path: [Certificate], trace: inout Trace) -> RejectionReason? {
        // if (!self.validatesCertificateChain && [publicKeys count] > 0) { publicKeys = @[[publicKeys firstObject]]; }
        let compared = validatesCertificateChain ? path : [path[0]]
        let pinned = sortedPinnedCertificates
        let check: TraceStep.Check = validatesCertificateChain ? .everyPublicKeyPinned : .pinnedPublicKeyMatch
        let reason: RejectionReason = validatesCertificateChain ? .unpinnedPublicKeyInPath : .leafPublicKeyNotPinned
        guard !pinned.isEmpty else {
            trace.add(check, .failed, Self.noPinnedKeys)
            return reason
        }
        // for (id trustChainPublicKey in publicKeys) { for (id pinnedPublicKey in self.pinnedPublicKeys) {
        //     if (AFSecKeyIsEqualToKey(trustChainPublicKey, pinnedPublicKey)) { trustedPublicKeyCount += 1; } } }
        let matches = compared.flatMap { certificate in
            pinned.filter { $0.publicKeyInfo == certificate.publicKeyInfo }.map { (certificate, $0) }
        }
        let found = matches.isEmpty ? "" : ": \(Self.keyMatches(matches))"
        guard validatesCertificateChain else {
            // return trustedPublicKeyCount > 0 && (… || (!self.validatesCertificateChain && trustedPublicKeyCount >= 1));
            let leaf = path[0]
            guard matches.isEmpty else {
                trace.add(check, .passed, "validatesCertificateChain is NO, so only the leaf's key is compared\(found)")
                return nil
            }
            trace.add(
                check, .failed,
                "validatesCertificateChain is NO, so only the leaf's key is compared: the key of '\(leaf.label)' is not the key of "
                    + "pinned \(Self.names(pinned))")
            return reason
        }
        // return trustedPublicKeyCount > 0 && ((self.validatesCertificateChain && trustedPublicKeyCount == [serverCertificates count]) || …);
        let needed =
            "validatesCertificateChain is YES, so the key matches (a key of the path equal to a pinned certificate's key, each pair "
            + "counted) must number \(path.count), the length of the path \(path.pathDescription)"
        guard matches.count == path.count else {
            trace.add(check, .failed, "\(needed), and there \(matches.count == 1 ? "is" : "are") \(matches.count)\(found)")
            return reason
        }
        trace.add(check, .passed, "\(needed), and there are \(matches.count)\(found)")
        return nil
    }
}
