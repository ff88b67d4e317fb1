import Policies

extension ClientLibrary {
    /// OkHttp's `CertificatePinner` with the lesson's keys pinned for the server's host, on Android's default
    /// trust at `client.android.targetSdkVersion` (with the platform's Certificate Transparency from 37 on): as fixed in 2.7.4 / 3.1.2, and before that fix.
    static let okHttp = ClientLibrary(
        name: "OkHttp",
        models: [
            Model(.okhttp) { scenario, world in try scenario.okHttpClient(.current, in: world) },
            Model(.okhttp3_1_1) { scenario, world in try scenario.okHttpClient(.beforeChainCleaning, in: world) },
        ],
        checks: TraceStep.Check.okHttpChecks + [.androidCertificateTransparency, .certificatePinnerCheckHook, .sslContextTrustAllHook],
        lessonOptions: [AndroidLessonOptions.self],
        hooks: [.certificatePinnerCheck, .sslContextTrustAll])
}

extension ClientModelName {
    /// OkHttp's `CertificatePinner` as fixed in 2.7.4 / 3.1.2 (pins checked over the cleaned chain).
    public static let okhttp = ClientModelName("okhttp", displayName: "OkHttp")
    /// OkHttp's `CertificatePinner` before that fix, checking pins over the presented chain (CVE-2016-2402).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // okhttp3_1_1 reads as the release it is, as AFNetworkingVersion's cases do.
    public static let okhttp3_1_1 = ClientModelName("okhttp-3.1.1", displayName: "OkHttp 3.1.1")
}

extension Scenario {
    fileprivate func okHttpClient(_ version: OkHttpClient.Version, in world: World) throws -> OkHttpClient {
        let pins = try publicKeyPins(in: world).map { CertificatePinner.Pin(pattern: server.host, certificate: $0) }
        let sdk = client.peerOptions[AndroidLessonOptions.self].targetSdkVersion
        return OkHttpClient(
            version: version, certificatePinner: CertificatePinner(pins: pins), trustManager: .platformDefault(targetSdkVersion: sdk), targetSdkVersion: sdk)
    }
}
