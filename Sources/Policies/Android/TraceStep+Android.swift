/// The checks of Android's Network Security Config (`android-nsc`) and the Android HTTP stack around it.
extension TraceStep.Check {
    /// Android: the platform's TLS-version floor (Conscrypt on Android 15 and later: TLS 1.2 and 1.3 only, whatever the target).
    public static let androidTLSVersion = Self(rawValue: "androidTLSVersion")
    /// Android NSC: which `domain-config`, `base-config` or platform default governs the host.
    public static let androidDomainConfig = Self(rawValue: "androidDomainConfig")
    /// Android NSC: the chain validated against the config's `trust-anchors` (SSLHandshakeException when it is not).
    public static let androidTrustAnchors = Self(rawValue: "androidTrustAnchors")
    /// Android 16 and later: Conscrypt's Certificate Transparency policy over the leaf's SCTs, when the config requires
    /// CT for the host, or why it does not.
    public static let androidCertificateTransparency = Self(rawValue: "androidCertificateTransparency")
    /// Android NSC: the `pin-set` over the trusted chain ("Pin verification failed"), or why it is not enforced.
    public static let androidPinSet = Self(rawValue: "androidPinSet")
    /// Android: the HTTP stack's HostnameVerifier (Android's bundled OkHostnameVerifier) after the handshake.
    public static let androidHostnameVerifier = Self(rawValue: "androidHostnameVerifier")
    /// Android NSC, before any connection: whether `cleartextTrafficPermitted` lets an `http://` load go out.
    public static let androidCleartextTraffic = Self(rawValue: "androidCleartextTraffic")

    /// Every check above, as the registry of client libraries lists them.
    public static let androidChecks: [Self] = [
        .androidTLSVersion, .androidDomainConfig, .androidTrustAnchors, .androidCertificateTransparency, .androidPinSet, .androidHostnameVerifier,
        .androidCleartextTraffic,
    ]
}
