import PKI

extension AndroidTrust {
    /// Android's own TLS-version floor, the same for every app: the platform's Conscrypt as Android 15 and later
    /// ship it (AOSP external/conscrypt, `platform/src/main/java/org/conscrypt/Platform.java`: `ENABLED_TLS_V1 = false`,
    /// so `NativeCrypto.setTlsV1DeprecationStatus` leaves `SUPPORTED_PROTOCOLS` at TLS 1.2 and 1.3). The target SDK
    /// only decides what an app that asks for TLS 1.0 or 1.1 gets (`isTlsV1Filtered`: silently dropped up to API 35,
    /// IllegalArgumentException from API 36), which no modelled app does (Docs/peers.md §7).
    static let platformFloor = TLSVersionFloor(
        minimum: .tls12,
        rule: "Android's platform TLS provider (Conscrypt, as Android 15 and later ship it) supports only TLS 1.2 and 1.3, for every app "
            + "whatever it targets")
}
