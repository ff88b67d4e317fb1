/// The Android hooks objection's `android sslpinning disable` and HTTP Toolkit's unpinning script make on an OkHttp app.
extension RuntimeHook {
    /// `okhttp3.CertificatePinner.check` (every overload, and 4.x's `check$okhttp`): replaced by a method that
    /// returns without throwing.
    public static let certificatePinnerCheck = Self("certificatePinnerCheck", target: "okhttp3.CertificatePinner.check", check: .certificatePinnerCheckHook)
    /// `javax.net.ssl.SSLContext.init(KeyManager[], TrustManager[], SecureRandom)`: the trust managers passed are
    /// replaced by objection's `X509TrustManager`, whose `checkServerTrusted` returns without looking.
    public static let sslContextTrustAll = Self("sslContextTrustAll", target: "javax.net.ssl.SSLContext.init", check: .sslContextTrustAllHook)
}

extension TraceStep.Check {
    /// The attacker's hook on `CertificatePinner.check`: a no-op.
    public static let certificatePinnerCheckHook = Self(rawValue: "certificatePinnerCheckHook")
    /// The attacker's hook on `SSLContext.init`: a trust-all X509TrustManager in the handshake.
    public static let sslContextTrustAllHook = Self(rawValue: "sslContextTrustAllHook")
}

extension OkHttpClient: HookableClient {
    /// OkHttp builds its `SSLSocketFactory` through `SSLContext.init` with the platform trust manager, and checks
    /// pins in `CertificatePinner.check`: both hooks act during the evaluation, where the trace shows them.
    public func applying(_ hook: RuntimeHook) -> (client: any ClientModel, note: TraceStep?)? {
        setting(\.pinnerCheckHooked, when: hook, is: .certificatePinnerCheck) ?? setting(\.handshakeTrustsAll, when: hook, is: .sslContextTrustAll)
    }
}
