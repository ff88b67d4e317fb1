/// OkHttp's rejection. A refused chain or host is `untrustedChain`.
extension RejectionReason {
    /// OkHttp: no certificate of the checked chain has a pinned SPKI hash (SSLPeerUnverifiedException "Certificate pinning failure!").
    public static let okHttpCertificatePinningFailure = Self(code: "okHttpCertificatePinningFailure")
}
