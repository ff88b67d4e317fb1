import PKI

extension AndroidTrust {
    /// Android's own TLS-version floor for an app targeting `targetSdkVersion`. Android's behaviour changes for
    /// apps targeting Android 15 (API 35): TLS 1.0 and 1.1, deprecated before, are disallowed from that target on;
    /// an app targeting API 34 or lower may still use them (Docs/peers.md §7 cites the page).
    static func platformFloor(targetSdkVersion sdk: Int) -> TLSVersionFloor {
        let first = NetworkSecurityConfig.firstSdkRefusingLegacyTLS
        guard sdk >= first else {
            return TLSVersionFloor(
                minimum: .tls10, rule: "Android lets an app targeting API \(sdk) still use TLS 1.0 and 1.1 (apps targeting API \(first) or later may not)")
        }
        return TLSVersionFloor(
            minimum: .tls12, rule: "Android disallows TLS 1.0 and 1.1 for apps targeting API \(first) (Android 15) or later, and this app targets API \(sdk)")
    }
}
