/// The rejections of Android's Network Security Config. A refused chain or host is `untrustedChain`.
extension RejectionReason {
    /// Android NSC: no certificate of the trusted chain matches the pin-set (CertificateException "Pin verification failed").
    public static let androidPinVerificationFailed = Self(code: "androidPinVerificationFailed")
    /// Android NSC: an `http://` load to a host whose config does not permit cleartext traffic (UnknownServiceException).
    public static let androidCleartextNotPermitted = Self(code: "androidCleartextNotPermitted")
    /// Android 16 and later: the platform trust manager requires Certificate Transparency for the host and the leaf's
    /// SCTs do not meet Conscrypt's policy (CertificateException "Certificate chain does not conform to required transparency policy").
    public static let androidTransparencyPolicyNotMet = Self(code: "androidTransparencyPolicyNotMet")
}
