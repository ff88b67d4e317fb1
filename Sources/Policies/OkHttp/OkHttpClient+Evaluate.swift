import PKI

extension OkHttpClient: ClientModel {
    /// OkHttp's connection setup, in `ConnectPlan.connectTls`'s order: the handshake's trust manager, then
    /// `hostnameVerifier.verify`, then `certificatePinner.check(host, chain)`. The first to throw fails the call.
    public func evaluate(_ connection: PresentedConnection) -> PolicyEvaluation {
        var trace = Trace()
        let trust = connection.serverTrust
        let host = connection.host

        // The ConnectionSpec's versions are offered in the ClientHello; the trust manager runs after the ServerHello.
        let floor = version.tlsVersionFloor
        guard floor.allows(connection.negotiated.version, check: .okHttpConnectionSpec, failure: "SSLHandshakeException", trace: &trace) else {
            return trace.reject(.tlsVersionRefused, path: [])
        }

        let validation = AndroidTrust.evaluate(trust, anchors: trustManager.anchors(in: trust.deviceTrustStore))
        let result = validation.result
        if handshakeTrustsAll {
            let instead = result.isValid ? "which would have validated it too" : "which would have refused it: \(SecurityPolicy.failures(result))"
            trace.add(
                .sslContextTrustAllHook, .passed,
                "hooked: \(RuntimeHook.sslContextTrustAll.target) got a trust-all X509TrustManager in place of \(trustManager.phrase), and its "
                    + "checkServerTrusted returns without looking, so the handshake accepts \(trust.certificates.pathDescription) (\(instead))")
        } else if !result.isValid {
            trace.add(
                .okHttpTrustManager, .failed,
                "\(trustManager.phrase) refuses the chain in the handshake: \(SecurityPolicy.failures(result)). SSLHandshakeException")
            return trace.reject(result)
        } else {
            trace.add(
                .okHttpTrustManager, .passed,
                "\(trustManager.phrase) validates the chain: path \(result.path.pathDescription)"
                    + validation.anchorClause(store: trust.deviceTrustStore))
            if let rejection = checkTransparency(path: validation.trustedChain, trust: trust, trace: &trace) {
                return trace.reject(rejection, path: validation.trustedChain)
            }
        }

        let hostname = AndroidTrust.verifyHostname(
            trust.leaf, host: host, check: .okHttpHostnameVerifier, verifier: version.hostnameVerifier, named: "OkHostnameVerifier")
        trace.steps.append(hostname.step)
        if let rejection = hostname.rejection { return trace.reject(rejection, path: validation.trustedChain) }

        // On Android, AndroidCertificateChainCleaner returns the chain Conscrypt's trust manager built.
        return checkPins(host: host, presented: trust.certificates, cleaned: validation.trustedChain, platform: result, trace: &trace)
    }

    /// OkHttp checks no SCT itself, but on Android 16 and later Conscrypt's trust manager, whichever anchors it holds,
    /// asks the app's network security policy whether the host requires CT: without a Network Security Config file
    /// (the OkHttp models have none) that is the platform default, which requires it from targetSdkVersion 37 on. Nil when it passes or is not required.
    private func checkTransparency(path: [Certificate], trust: ServerTrust, trace: inout Trace) -> RejectionReason? {
        let first = NetworkSecurityConfig.firstSdkRequiringCertificateTransparency
        guard targetSdkVersion >= first else { return nil }
        let transparency = ConscryptTransparencyPolicy.step(
            .androidCertificateTransparency, path: path, trust: trust,
            why: "Certificate Transparency is required inside the trust manager's checkServerTrusted: the OkHttp models run without a Network "
                + "Security Config file, and the platform default for targetSdkVersion \(targetSdkVersion) requires it for every host (from API \(first) on)")
        trace.steps.append(transparency.step)
        return transparency.rejection
    }

    /// `CertificatePinner.check`: no pins for the host → nothing to check; else some certificate's SPKI hash
    /// must be a pin, over the cleaned chain today and over the presented one before the fix.
    /// `platform` is the platform trust manager's verdict, which the chain cleaner asks even when a hook gave the
    /// handshake another trust manager.
    private func checkPins(
        host: String, presented: [Certificate], cleaned: [Certificate], platform: TrustResult, trace: inout Trace
    ) -> PolicyEvaluation {
        let pins = certificatePinner.findMatchingPins(host, version: version)
        let path = platform.isValid ? cleaned : presented
        guard !pins.isEmpty else {
            if pinnerCheckHooked {
                trace.add(
                    .certificatePinnerCheckHook, .note,
                    "hooked: \(RuntimeHook.certificatePinnerCheck.target) is a no-op, but it has no pin to skip for '\(host)', so nothing changes")
            }
            // OkHttp 3 keys its pins by the pattern as written: "**." came in 4.3, so before it such a pattern is a host name.
            let literal = version == .beforeChainCleaning ? certificatePinner.pins.map(\.pattern).filter { $0.hasPrefix("**.") } : []
            let readAsHost = literal.isEmpty ? "" : " (this release reads '\(literal[0])' as a literal host name: '**.' patterns came in OkHttp 4.3)"
            let none = certificatePinner.pins.isEmpty ? "the CertificatePinner has no pins" : "no pin's pattern matches '\(host)'\(readAsHost)"
            trace.add(.okHttpChainCleaning, .skipped, "\(none), so CertificatePinner.check returns before cleaning the chain")
            trace.add(.okHttpCertificatePinner, .skipped, "\(none): the host is not pinned, and the trust manager's verdict stands")
            return trace.accept(path: path)
        }
        let pinList = pins.map(\.description).joined(separator: ", ")
        if pinnerCheckHooked {
            trace.add(.okHttpChainCleaning, .skipped, "CertificatePinner.check is hooked, so the chain is never cleaned")
            trace.add(
                .certificatePinnerCheckHook, .passed,
                "hooked: \(RuntimeHook.certificatePinnerCheck.target)('\(host)', …) returns without comparing anything: "
                    + "the pins \(pinList) are never looked at, and no SSLPeerUnverifiedException is thrown")
            return trace.accept(path: path)
        }
        if version == .current, let failure = platform.reason {
            trace.add(
                .okHttpChainCleaning, .failed,
                "the certificate chain cleaner asks the platform's trust manager, which OkHttp kept for it (the hook replaced only the one "
                    + "SSLContext.init was given), and it does not trust \(presented.pathDescription): \(SecurityPolicy.failures(platform)). "
                    + "SSLPeerUnverifiedException before any pin is compared")
            return trace.reject(.untrustedChain(failure), path: presented)
        }

        let checked: [Certificate]
        switch version {
        case .current:
            let dropped = presented.filter { !cleaned.contains($0) }
            // Conscrypt's chain stops below a root when no trust anchor issued its last certificate.
            let top =
                cleaned.last.map { $0.isSelfIssued ? "a trusted root" : "the trust anchor '\($0.label)', which no trust anchor issued" }
                ?? "a trusted root"
            let droppedClause = dropped.isEmpty ? "" : "; the presented \(SecurityPolicy.names(dropped)) \(dropped.count == 1 ? "is" : "are") dropped"
            trace.add(
                .okHttpChainCleaning, .note,
                "the certificate chain cleaner rebuilds the chain from the leaf, certificate by certificate by signature, to \(top): "
                    + "\(cleaned.pathDescription)\(droppedClause)")
            checked = cleaned
        case .beforeChainCleaning:
            trace.add(
                .okHttpChainCleaning, .skipped,
                "before the CVE-2016-2402 fix the chain is not cleaned: the pins are checked over the chain exactly as the server presented it, "
                    + "\(presented.pathDescription), whether or not a certificate in it belongs to the validated path")
            checked = presented
        }

        let which = version == .current ? "cleaned" : "presented"
        if let match = checked.lazy.compactMap({ certificate in pins.first { $0.matches(certificate) }.map { (certificate, $0) } }).first {
            trace.add(
                .okHttpCertificatePinner, .passed,
                "'\(match.0.label)' in the \(which) chain has the public key of pin \(match.1) (pattern '\(match.1.pattern)')")
            return trace.accept(path: cleaned)
        }
        let peers = checked.map { "\(pinFor($0, like: pins)) '\($0.label)'" }.joined(separator: ", ")
        trace.add(
            .okHttpCertificatePinner, .failed,
            "SSLPeerUnverifiedException: Certificate pinning failure! No certificate of the \(which) chain \(checked.pathDescription) "
                + "has a pinned public key. Peer certificate chain: \(peers). Pinned certificates for \(host): \(pinList)")
        return trace.reject(.okHttpCertificatePinningFailure, path: cleaned)
    }

    /// The certificate's pin in the digest the host's pins use (sha256 unless they are all sha1), as OkHttp's message lists it.
    private func pinFor(_ certificate: Certificate, like pins: [CertificatePinner.Pin]) -> String {
        pins.allSatisfy { $0.hashAlgorithm == .sha1 } ? "sha1/\(certificate.publicKeySHA1Base64)" : "sha256/\(certificate.publicKeySHA256Base64)"
    }
}
