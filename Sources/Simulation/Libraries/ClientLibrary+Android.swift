import Policies

extension ClientLibrary {
    /// Android's Network Security Config with the lesson's keys as the server host's `pin-set` and
    /// `client.networkSecurityConfig` as its base-config, read as `client.android` sets the app; in an audit, the app's Network Security Config and OkHttp's pins file, both
    /// on the Android device at `--target-sdk` (the OkHttp judge is the Android app's, so it is listed here).
    static let android = ClientLibrary(
        name: "Android",
        models: [Model(.androidNSC) { scenario, world in try scenario.androidClient(in: world) }],
        checks: TraceStep.Check.androidChecks + [.networkSecurityConfigPinsHook],
        lessonOptions: [AndroidLessonOptions.self, NetworkSecurityConfigLessonOptions.self],
        hooks: [.networkSecurityConfigPins],
        auditJudges: { configuration in configuration.androidJudges + configuration.okHttpJudges })
}

extension ClientModelName {
    /// Android's Network Security Config.
    public static let androidNSC = ClientModelName("android-nsc", displayName: "Android Network Security Config")
}

extension Scenario {
    fileprivate func androidClient(in world: World) throws -> AndroidNetworkSecurityClient {
        let pins = try publicKeyPins(in: world)
        let options = client.peerOptions[AndroidLessonOptions.self]
        let expiration = options.pinSetExpiration.flatMap(CalendarDay.date)
        let domains =
            pins.isEmpty
            ? []
            : [
                NetworkSecurityConfig.DomainConfig(
                    domains: [.init(server.host)], pinSet: .init(pins: pins.map(NetworkSecurityConfig.Pin.init(certificate:)), expiration: expiration))
            ]
        let base = client.peerOptions[NetworkSecurityConfigLessonOptions.self].baseConfig
        return AndroidNetworkSecurityClient(
            config: NetworkSecurityConfig(baseConfig: base, domainConfigs: domains), targetSdkVersion: options.targetSdkVersion)
    }
}
