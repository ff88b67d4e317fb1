/// The rejections of Android's Network Security Config. A refused chain or host is `untrustedChain`.
extension RejectionReason {
    /// Android NSC: no certificate of the trusted chain matches the pin-set (CertificateException "Pin verification failed").
    public static let androidPinVerificationFailed = Self(code: "androidPinVerificationFailed")
    /// Android NSC: an `http://` load to a host whose config does not permit cleartext traffic (UnknownServiceException).
    public static let androidCleartextNotPermitted = Self(code: "androidCleartextNotPermitted")
}
