import PKI

/// Why a policy said NO, as one value (the trace says it in words).
public enum RejectionReason: Hashable, Sendable {
    /// Step 1: AFNetworking refuses allowInvalidCertificates + validatesDomainName without pins.
    case contradictorySettings
    /// The device trust store (step 3–4) or the pinned anchors (step 5b) did not validate the chain.
    case untrustedChain(TrustFailure)
    /// Certificate mode: no certificate of the path is pinned.
    case pinnedCertificateNotInPath
    /// Public-key mode: no key of the path is pinned.
    case pinnedPublicKeyNotInPath

    // The iOS client's own gates (App Transport Security). Codes follow Apple's errSSLATS… names.

    /// ATS refused an `http://` load (NSURLError -1022).
    case atsRequiresSecureConnection
    /// ATS: the negotiated TLS version is below the minimum (errSSLATSMinimumVersionViolation).
    case atsMinimumVersionViolation
    /// ATS: the suite is not one ATS accepts (errSSLATSCiphersuiteViolation).
    case atsCiphersuiteViolation
    /// ATS: the leaf's key is too short (errSSLATSMinimumKeySizeViolation).
    case atsMinimumKeySizeViolation
    /// ATS: the leaf is signed with a digest weaker than SHA-256 (errSSLATSLeafCertificateHashAlgorithmViolation).
    case atsLeafCertificateHashAlgorithmViolation
    /// ATS: the system's default evaluation does not trust the chain (errSSLATSCertificateTrustViolation).
    case atsCertificateTrustViolation(TrustFailure)

    // AFNetworking 2.x rejections that 4.x cannot make.
    /// 2.1–2.2.0, certificate mode with validatesCertificateChain NO: the leaf is not pinned.
    case leafCertificateNotPinned
    /// 2.1–2.5.3, public-key mode with validatesCertificateChain NO: the leaf's key is not pinned.
    case leafPublicKeyNotPinned
    /// 2.1–2.5.3, certificate mode with validatesCertificateChain YES: some certificate of the path is not pinned.
    case unpinnedCertificateInPath
    /// 2.1–2.5.3, public-key mode with validatesCertificateChain YES: fewer key matches than certificates in the path.
    case unpinnedPublicKeyInPath
    /// 2.2.0: the leaf's subject summary does not match the domain.
    case commonNameMismatch

    // TrustKit. A chain its forced SSL evaluation refuses is `untrustedChain`.
    /// TSKEnforcePinning YES and no key of the evaluated path hashes to a pin (TSKTrustEvaluationFailedNoMatchingPin).
    case trustKitNoMatchingPin
    /// A certificate of the path has a key TrustKit cannot hash (TSKTrustEvaluationErrorCouldNotGenerateSpkiHash).
    case trustKitCouldNotGenerateSPKIHash

    // curl. A chain OpenSSL does not verify with VERIFYPEER on is `untrustedChain` (CURLE_PEER_FAILED_VERIFICATION, 60).
    /// VERIFYHOST: the leaf does not name the host (CURLE_PEER_FAILED_VERIFICATION, 60).
    case curlHostNameMismatch
    /// `--pinnedpubkey`: the leaf's key is not pinned (CURLE_SSL_PINNEDPUBKEYNOTMATCH, 90).
    case curlPinnedPublicKeyMismatch
    // Alamofire 5's `AFError.ServerTrustFailureReason`s that no other client has (pin mismatches and untrusted
    // chains use the cases above).
    /// `ServerTrustManager` has no evaluator for the host and `allHostsMustBeEvaluated` is true (`.noRequiredEvaluator`).
    case alamofireNoRequiredEvaluator
    /// `PinnedCertificatesTrustEvaluator` with no certificates (`.noCertificatesFound`).
    case alamofireNoCertificatesFound
    /// `PublicKeysTrustEvaluator` with no keys (`.noPublicKeysFound`).
    case alamofireNoPublicKeysFound
    /// The revocation evaluation wanted a positive response (`.requirePositiveResponse`) that no CRL or OCSP responder gave.
    case alamofireRevocationCheckFailed
    // OkHttp and Android's Network Security Config. A refused chain or host is `untrustedChain` as above.
    /// OkHttp: no certificate of the checked chain has a pinned SPKI hash (SSLPeerUnverifiedException "Certificate pinning failure!").
    case okHttpCertificatePinningFailure
    /// Android NSC: no certificate of the trusted chain matches the pin-set (CertificateException "Pin verification failed").
    case androidPinVerificationFailed
    /// Android NSC: an `http://` load to a host whose config does not permit cleartext traffic (UnknownServiceException).
    case androidCleartextNotPermitted

    /// A stable identifier for JSON: the trust failure's code for untrusted chains (ATS's own code when ATS refused one).
    public var code: String {
        switch self {
        case .contradictorySettings: "contradictorySettings"
        case .untrustedChain(let failure): failure.kind.code
        case .pinnedCertificateNotInPath: "pinnedCertificateNotInPath"
        case .pinnedPublicKeyNotInPath: "pinnedPublicKeyNotInPath"
        case .atsRequiresSecureConnection: "atsRequiresSecureConnection"
        case .atsMinimumVersionViolation: "atsMinimumVersionViolation"
        case .atsCiphersuiteViolation: "atsCiphersuiteViolation"
        case .atsMinimumKeySizeViolation: "atsMinimumKeySizeViolation"
        case .atsLeafCertificateHashAlgorithmViolation: "atsLeafCertificateHashAlgorithmViolation"
        case .atsCertificateTrustViolation: "atsCertificateTrustViolation"

        case .leafCertificateNotPinned: "leafCertificateNotPinned"
        case .leafPublicKeyNotPinned: "leafPublicKeyNotPinned"
        case .unpinnedCertificateInPath: "unpinnedCertificateInPath"
        case .unpinnedPublicKeyInPath: "unpinnedPublicKeyInPath"
        case .commonNameMismatch: "commonNameMismatch"

        case .trustKitNoMatchingPin: "trustKitNoMatchingPin"
        case .trustKitCouldNotGenerateSPKIHash: "trustKitCouldNotGenerateSPKIHash"
        case .curlHostNameMismatch: "curlHostNameMismatch"
        case .curlPinnedPublicKeyMismatch: "curlPinnedPublicKeyMismatch"
        case .alamofireNoRequiredEvaluator: "noRequiredEvaluator"
        case .alamofireNoCertificatesFound: "noCertificatesFound"
        case .alamofireNoPublicKeysFound: "noPublicKeysFound"
        case .alamofireRevocationCheckFailed: "revocationCheckFailed"
        case .okHttpCertificatePinningFailure: "okHttpCertificatePinningFailure"
        case .androidPinVerificationFailed: "androidPinVerificationFailed"
        case .androidCleartextNotPermitted: "androidCleartextNotPermitted"
        }
    }
}
