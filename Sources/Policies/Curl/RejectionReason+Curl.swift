/// curl's rejections. A chain OpenSSL does not verify with VERIFYPEER on is `untrustedChain` (CURLE_PEER_FAILED_VERIFICATION, 60).
extension RejectionReason {
    /// VERIFYHOST: the leaf does not name the host (CURLE_PEER_FAILED_VERIFICATION, 60).
    public static let curlHostNameMismatch = Self(code: "curlHostNameMismatch")
    /// `--pinnedpubkey`: the leaf's key is not pinned (CURLE_SSL_PINNEDPUBKEYNOTMATCH, 90).
    public static let curlPinnedPublicKeyMismatch = Self(code: "curlPinnedPublicKeyMismatch")
}
