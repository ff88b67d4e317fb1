import PKI

extension AndroidTrust {
    /// What Conscrypt's `TrustManagerImpl` makes of a chain (`checkTrustedRecursive` and `verifyChain`, at
    /// google/conscrypt 2.5.2): the path up to the first trust anchor is validated with that anchor as a PKIX
    /// `TrustAnchor`, so nothing about the anchor itself is checked (its dates, its pathLen, its own extensions),
    /// and the trusted chain goes on through the trust anchors that issued it, up to a self-issued one, "for
    /// additional validation such as certificate pinning".
    struct Validation {
        /// OpenSSL's verdict without the failures of the trust anchors themselves; its path ends at the first anchor.
        let result: TrustResult
        /// `result.path` carried on through the trust anchors above the first one: the chain pins are checked over.
        let trustedChain: [Certificate]
        /// What OpenSSL found wrong with the trust anchors themselves, which Conscrypt never checks.
        let uncheckedAnchorFailures: [TrustFailure]

        /// ", ending at 'Bank Root' from the system CA store": where the anchor that ended a valid path comes
        /// from, what Conscrypt did not check in it, and the trust anchors the chain goes on through.
        func anchorClause(store: DeviceTrustStore, resources: [(name: String, certificates: [Certificate])] = []) -> String {
            guard let anchor = result.anchor?.certificate else { return "" }
            let origin =
                if store.system.contains(anchor) {
                    "from the system CA store"
                } else if userAdded(store).contains(anchor) {
                    "from the user-added CA store"
                } else if let resource = resources.first(where: { $0.certificates.contains(anchor) }) {
                    "from the app's \(resource.name)"
                } else {
                    "one of the app's own certificates"
                }
            let unchecked =
                uncheckedAnchorFailures.isEmpty
                ? ""
                : " (a trust anchor is not itself checked, so it does not matter that "
                    + uncheckedAnchorFailures.map(\.description).joined(separator: "; ") + ")"
            let above = trustedChain.drop { $0 != anchor }.dropFirst()
            let onward =
                above.isEmpty
                ? ""
                : "; the trusted chain goes on through the trust anchor\(above.count == 1 ? "" : "s") that issued it: "
                    + Array(above).pathDescription
            return ", ending at '\(anchor.label)' \(origin)\(unchecked)\(onward)"
        }
    }

    /// Validates `trust`'s chain as Conscrypt's TrustManagerImpl would against `anchors`: Android's rules, a
    /// TLS-server purpose, no host name (the HostnameVerifier checks it after the handshake).
    static func evaluate(_ trust: ServerTrust, anchors: [Certificate]) -> Validation {
        var android = trust
        android.platform = .android
        android.policy = .ssl(host: nil)
        android.setAnchorCertificates(anchors)
        let result = android.evaluate()
        // findTrustAnchorBySubjectAndPublicKey / findAllTrustAnchorsByIssuerAndSignature: an anchor is found by name and key.
        func isAnchor(_ certificate: Certificate) -> Bool {
            anchors.contains { $0.subject == certificate.subject && $0.publicKeyInfo == certificate.publicKeyInfo }
        }
        guard let first = result.path.firstIndex(where: isAnchor) else {
            return Validation(result: result, trustedChain: result.path, uncheckedAnchorFailures: [])
        }
        let validated = Array(result.path[...first])
        let anchorsInPath = result.path[first...]
        let unchecked = result.failures.filter { anchorsInPath.contains($0.certificate) }
        let failures = result.failures.filter { !anchorsInPath.contains($0.certificate) }
        let top = validated[first]
        let checked = TrustResult(path: validated, failures: failures, anchor: android.source(ofAnchor: top).map { (top, $0) })
        // Step 2 of checkTrustedRecursive, repeated until the current certificate is self-issued; each anchor once.
        var chain = validated
        while let current = chain.last, !current.isSelfIssued,
            let issuer = anchors.first(where: { candidate in
                !chain.contains(candidate) && candidate.subject == current.issuer && current.isSigned(by: candidate)
            })
        {
            chain.append(issuer)
        }
        return Validation(result: checked, trustedChain: checked.isValid ? chain : checked.path, uncheckedAnchorFailures: checked.isValid ? unchecked : [])
    }
}
