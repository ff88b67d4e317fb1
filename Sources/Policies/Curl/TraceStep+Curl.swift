/// curl's checks with the OpenSSL backend (`Curl_ossl_check_peer_cert`), in the order it checks.
extension TraceStep.Check {
    /// curl: the TLS version: the release's default minimum (and, for 7.88.1, OpenSSL 3's), before any certificate.
    public static let curlTLSVersion = Self(rawValue: "curlTLSVersion")
    /// CURLOPT_SSL_VERIFYHOST: curl's own match of the host against the leaf's SAN (its CN when it has no SAN).
    public static let curlVerifyHost = Self(rawValue: "curlVerifyHost")
    /// CURLOPT_SSL_VERIFYPEER: OpenSSL's verification of the chain against curl's CA bundle.
    public static let curlVerifyPeer = Self(rawValue: "curlVerifyPeer")
    /// CURLOPT_PINNEDPUBLICKEY (`--pinnedpubkey`): the leaf's SPKI against the pinned keys, even with `-k`.
    public static let curlPinnedPublicKey = Self(rawValue: "curlPinnedPublicKey")

    /// Every check above, as the registry of client libraries lists them.
    public static let curlChecks: [Self] = [.curlTLSVersion, .curlVerifyHost, .curlVerifyPeer, .curlPinnedPublicKey]
}
