/// OkHttp's checks (`okhttp`, `okhttp-3.1.1`): the trust manager, the hostname verifier and `CertificatePinner`.
extension TraceStep.Check {
    /// OkHttp: the TLS versions of its default ConnectionSpec, and Android's floor for the app's target.
    public static let okHttpConnectionSpec = Self(rawValue: "okHttpConnectionSpec")
    /// OkHttp: the X509TrustManager validates the chain in the handshake (SSLHandshakeException when it refuses).
    public static let okHttpTrustManager = Self(rawValue: "okHttpTrustManager")
    /// OkHttp: the HostnameVerifier (OkHostnameVerifier) checks the leaf names the host (SSLPeerUnverifiedException).
    public static let okHttpHostnameVerifier = Self(rawValue: "okHttpHostnameVerifier")
    /// OkHttp: CertificatePinner rebuilds the chain from the leaf to a trusted root before matching pins (or, before the CVE-2016-2402 fix, does not).
    public static let okHttpChainCleaning = Self(rawValue: "okHttpChainCleaning")
    /// OkHttp: `CertificatePinner.check`, some certificate's SPKI hash among the host's pins ("Certificate pinning failure!").
    public static let okHttpCertificatePinner = Self(rawValue: "okHttpCertificatePinner")

    /// Every check above, as the registry of client libraries lists them.
    public static let okHttpChecks: [Self] = [
        .okHttpConnectionSpec, .okHttpTrustManager, .okHttpHostnameVerifier, .okHttpChainCleaning, .okHttpCertificatePinner,
    ]
}
