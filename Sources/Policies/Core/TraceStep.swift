/// One branch that `SecurityPolicy.evaluate(serverTrust:forDomain:)` or the iOS client around it took, with its sentence.
public struct TraceStep: Hashable, Sendable, CustomStringConvertible {
    /// The branches of `-[AFSecurityPolicy evaluateServerTrust:forDomain:]` and of the client's other gates;
    /// raw values are stable names.
    public enum Check: String, Hashable, Sendable, CaseIterable {
        /// Step 1: allowInvalidCertificates + validatesDomainName + a domain, but nothing pinned → NO.
        case domainGuard
        /// Step 2: SecPolicyCreateSSL(true, domain) or SecPolicyCreateBasicX509().
        case policySelection
        /// Steps 3–4: the chain evaluated against the device trust store.
        case chainTrust
        /// Steps 3–4: allowInvalidCertificates = YES skips that evaluation.
        case allowInvalidOverride
        /// Step 5a–b: certificate mode makes the pinned certificates the only anchors and re-evaluates.
        case pinnedAnchors
        /// Step 5d: some certificate of the path is byte-equal to a pinned one.
        case pinnedCertificateMatch
        /// Step 5, public-key mode: some key of the path equals a pinned certificate's key.
        case pinnedPublicKeyMatch

        // The iOS client around the policy: App Transport Security, the URLSession challenge, two-way TLS.

        /// ATS, before any connection: `http://` is refused (NSURLError -1022) unless a key allows it.
        case atsScheme
        /// ATS, in the handshake: the negotiated TLS version against the minimum (TLS 1.2 unless an exception lowers it).
        case atsTLSVersion
        /// ATS, in the handshake: a forward-secret ECDHE suite with AES, or any TLS 1.3 suite.
        case atsCipherSuite
        /// ATS, in the handshake: the leaf signed with SHA-256 or better, with an RSA ≥ 2048 or EC ≥ 256 bit key.
        case atsCertificateStrength
        /// Who answers the server-trust challenge: AFNetworking's policy, an accept-all block, or the system.
        case challengeHandler
        /// The system's default evaluation (SSL policy for the host, device trust store) when no delegate answers.
        case systemTrust
        /// What the handler told URLSession: UseCredential, CancelAuthenticationChallenge or PerformDefaultHandling.
        case challengeDisposition
        /// ATS, after the handler: the system's default evaluation must trust the chain unless the domain is exempt.
        case atsServerTrust
        /// Two-way TLS: the identity the app answers the client-certificate challenge with, from its `.p12`.
        case clientCertificate

        // AFNetworking 2.x branches that 4.x has no counterpart for.
        /// AFNetworking 2.5.1, mode none: YES without evaluating anything.
        case modeNoneWithoutEvaluation
        /// 2.1–2.5.3, certificate mode with validatesCertificateChain YES: every certificate of the path is pinned.
        case everyCertificatePinned
        /// 2.1–2.5.3, public-key mode with validatesCertificateChain YES: as many key matches as certificates in the path.
        case everyPublicKeyPinned
        /// 2.1.0 and 2.2.0: the leaf's subject summary (its common name) compared with the domain, wildcards per label.
        case commonNameMatch

        // TrustKit (`TSKPinningValidator`, `verifyPublicKeyPin`), in the order it decides.
        /// The host's `TSKPinnedDomains` entry: its own, or the longest parent with TSKIncludeSubdomains; none means not pinned.
        case trustKitPolicyLookup
        /// `TSKExpirationDate`: an expired policy leaves the domain not pinned.
        case trustKitPolicyExpiration
        /// Domain not pinned: PerformDefaultHandling, the system's own evaluation decides.
        case trustKitDefaultHandling
        /// SecPolicyCreateSSL(YES, host) forced and the chain evaluated: an invalid chain is blocked even in report-only.
        case trustKitChainValidation
        /// The evaluated path walked from the root to the leaf for a key whose SPKI hash is pinned.
        case trustKitPinMatch
        /// TSKEnforcePinning NO: no pin matched, and the connection is allowed and reported.
        case trustKitReportOnly

        // curl with the OpenSSL backend (`Curl_ossl_check_peer_cert`), in the order it checks.
        /// CURLOPT_SSL_VERIFYHOST: curl's own match of the host against the leaf's SAN (its CN when it has no SAN).
        case curlVerifyHost
        /// CURLOPT_SSL_VERIFYPEER: OpenSSL's verification of the chain against curl's CA bundle.
        case curlVerifyPeer
        /// CURLOPT_PINNEDPUBLICKEY (`--pinnedpubkey`): the leaf's SPKI against the pinned keys, even with `-k`.
        case curlPinnedPublicKey
        // Alamofire 5 (`ServerTrustManager` and its `ServerTrustEvaluating` evaluators) and Alamofire 4 (`ServerTrustPolicy`).
        /// Alamofire 5: `ServerTrustManager.serverTrustEvaluator(forHost:)`, the exact host's evaluator, or none.
        case alamofireEvaluatorLookup
        /// Alamofire 5: which evaluator runs, with its settings (one per evaluator of a `CompositeTrustEvaluator`).
        case alamofireEvaluator
        /// Alamofire 5: `performValidation(forHost:)`, an evaluation with `SecPolicyCreateSSL(true, host)`: the whole chain and the host name.
        case alamofireHostValidation
        /// Alamofire 5: `performDefaultValidation(forHost:)`, an evaluation with `SecPolicyCreateSSL(true, nil)`: the chain, no host name.
        case alamofireDefaultValidation
        /// Alamofire 5: `RevocationTrustEvaluator`'s evaluation with `SecPolicyCreateRevocation(options)`.
        case alamofireRevocationCheck
        /// Alamofire 5: the pinning evaluators throw before evaluating anything when they have nothing pinned.
        case alamofirePinsPresent
        /// Alamofire 5: `acceptSelfSignedCertificates` makes the pinned certificates the only anchors.
        case alamofireSelfSignedAnchors
        /// Alamofire 5: some certificate of the trust's chain is byte-equal to a pinned one.
        case alamofireCertificatePinning
        /// Alamofire 5: some key of the trust's chain is a pinned key.
        case alamofirePublicKeyPinning
        /// Alamofire 5: `DisabledTrustEvaluator` checks nothing.
        case alamofireDisabledEvaluation
        /// Alamofire 4 and 5: what App Transport Security would add on a device, which the library model does not judge.
        case alamofireAppTransportSecurity
        /// Alamofire 4: `ServerTrustPolicyManager.serverTrustPolicy(forHost:)`, the exact host's policy, or none.
        case alamofire4PolicyLookup
        /// Alamofire 4: `trustIsValid`, one evaluation with `SecPolicyCreateSSL(true, host or nil)` (and the revocation policy or pinned anchors).
        case alamofire4TrustEvaluation
        /// Alamofire 4: `.pinCertificates` without chain validation, a byte match over the trust's chain.
        case alamofire4CertificatePinning
        /// Alamofire 4: `.pinPublicKeys`, a key match over the trust's chain.
        case alamofire4PublicKeyPinning
        /// Alamofire 4: `.disableEvaluation` checks nothing.
        case alamofire4DisabledEvaluation
        // OkHttp (`okhttp`, `okhttp-3.1.1`) and Android's Network Security Config (`android-nsc`).
        /// OkHttp: the X509TrustManager validates the chain in the handshake (SSLHandshakeException when it refuses).
        case okHttpTrustManager
        /// OkHttp: the HostnameVerifier (OkHostnameVerifier) checks the leaf names the host (SSLPeerUnverifiedException).
        case okHttpHostnameVerifier
        /// OkHttp: CertificatePinner rebuilds the chain from the leaf to a trusted root before matching pins (or, before the CVE-2016-2402 fix, does not).
        case okHttpChainCleaning
        /// OkHttp: `CertificatePinner.check`, some certificate's SPKI hash among the host's pins ("Certificate pinning failure!").
        case okHttpCertificatePinner
        /// Android NSC: which `domain-config`, `base-config` or platform default governs the host.
        case androidDomainConfig
        /// Android NSC: the chain validated against the config's `trust-anchors` (SSLHandshakeException when it is not).
        case androidTrustAnchors
        /// Android NSC: the `pin-set` over the trusted chain ("Pin verification failed"), or why it is not enforced.
        case androidPinSet
        /// Android: the HTTP stack's HostnameVerifier (Android's bundled OkHostnameVerifier) after the handshake.
        case androidHostnameVerifier
        /// Android NSC, before any connection: whether `cleartextTrafficPermitted` lets an `http://` load go out.
        case androidCleartextTraffic
    }

    public enum Outcome: String, Hashable, Sendable {
        /// The check held; evaluation went on, or ended with YES.
        case passed
        /// The check failed; evaluation ended with NO.
        case failed
        /// The branch exists but was not taken, and the sentence says why.
        case skipped
        /// Information that decides nothing by itself (which trust policy was chosen).
        case note
    }

    public let check: Check
    public let outcome: Outcome
    /// One deterministic sentence that names certificates by label.
    public let detail: String

    public init(_ check: Check, _ outcome: Outcome, _ detail: String) {
        self.check = check
        self.outcome = outcome
        self.detail = detail
    }

    /// "[FAIL] chainTrust: …", the line the text report and the console show.
    public var description: String {
        let tag =
            switch outcome {
            case .passed: "pass"
            case .failed: "FAIL"
            case .skipped: "skip"
            case .note: "note"
            }
        return "[\(tag)] \(check.rawValue): \(detail)"
    }
}

extension TraceStep: Encodable {
    /// `{"check", "outcome", "detail"}`: how every JSON report writes a step.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(check.rawValue, forKey: .check)
        try container.encode(outcome.rawValue, forKey: .outcome)
        try container.encode(detail, forKey: .detail)
    }

    private enum CodingKeys: String, CodingKey { case check, outcome, detail }
}
