/// HTTP Toolkit's Network Security Config hook (`android-certificate-unpinning.js`).
extension RuntimeHook {
    /// `android.security.net.config.NetworkSecurityConfig`'s constructor: its `PinSet` argument is replaced by
    /// `PinSet.EMPTY_PINSET`, so no config the app's XML built has a pin.
    public static let networkSecurityConfigPins = Self(
        "networkSecurityConfigPins", target: "android.security.net.config.NetworkSecurityConfig.<init>", check: .networkSecurityConfigPinsHook)
}

extension TraceStep.Check {
    /// The attacker's hook on the Network Security Config's constructor: every pin-set empty.
    public static let networkSecurityConfigPinsHook = Self(rawValue: "networkSecurityConfigPinsHook")
}

extension AndroidNetworkSecurityClient: HookableClient {
    /// The hook acts when the config is built, but only `checkPins` reads what it changed, so the trace shows it there.
    public func applying(_ hook: RuntimeHook) -> (client: any ClientModel, note: TraceStep?)? {
        setting(\.pinsHooked, when: hook, is: .networkSecurityConfigPins)
    }
}
