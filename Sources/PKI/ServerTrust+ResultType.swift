extension ServerTrust {
    /// `SecTrustResultType`: what `SecTrustEvaluate` hands back beside its verdict, by the constants' names.
    ///
    /// From Apple's trust daemon (Security-61901, `trust/trustd`): a valid path is `Unspecified` unless its
    /// anchor came from the user's trust store while the device's anchors count (`SecPVCCheckUsageConstraints`
    /// in `SecPolicyServer.c`, the anchor sources of `SecPathBuilderInit` in `SecTrustServer.c`); a failure is
    /// `RecoverableTrustFailure` unless a check marked F in `SecPolicyChecks.list` failed (`WeakKeySize`,
    /// `WeakSignature`). mitmsim models no trust setting that denies a certificate, so `kSecTrustResultDeny`
    /// never arises.
    public enum ResultType: String, Hashable, Sendable {
        /// Valid, ending at an anchor no user trust setting names (a root built into iOS, an app anchor).
        case unspecified = "kSecTrustResultUnspecified"
        /// Valid, ending at a root the user installed and explicitly trusted (Certificate Trust Settings).
        case proceed = "kSecTrustResultProceed"
        /// Not trusted as evaluated, but a changed evaluation (another anchor, date or policy) could trust it.
        case recoverableTrustFailure = "kSecTrustResultRecoverableTrustFailure"
        /// Not trusted, and no change of anchors, date or policy can make it so (a key or digest Apple bans).
        case fatalTrustFailure = "kSecTrustResultFatalTrustFailure"

        /// The type of `result`. `anchorsOnly`: the evaluation ran after `SecTrustSetAnchorCertificates`
        /// (which turns `SecTrustSetAnchorCertificatesOnly` on), so the user's trust store was no anchor source.
        public init(_ result: TrustResult, anchorsOnly: Bool) {
            if result.isValid {
                self = !anchorsOnly && result.anchor?.source == .userInstalled ? .proceed : .unspecified
            } else {
                self = result.failures.contains(where: \.isFatal) ? .fatalTrustFailure : .recoverableTrustFailure
            }
        }
    }
}

extension TrustFailure {
    /// Apple's checks of type F: a key below RSA 1024 / EC 160 bits and an MD2, MD4 or MD5 signature under any
    /// policy. Every other failure mitmsim models is recoverable (SHA-1 and the 2048-bit TLS minimum included).
    fileprivate var isFatal: Bool {
        switch kind {
        case .weakKey(forTLS: false): true
        case .weakSignatureDigest(let digest): digest != "SHA-1"
        default: false
        }
    }
}
