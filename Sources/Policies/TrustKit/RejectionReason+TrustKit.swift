/// TrustKit's rejections. A chain its forced SSL evaluation refuses is `untrustedChain`.
extension RejectionReason {
    /// TSKEnforcePinning YES and no key of the evaluated path hashes to a pin (TSKTrustEvaluationFailedNoMatchingPin).
    public static let trustKitNoMatchingPin = Self(code: "trustKitNoMatchingPin")
    /// A certificate of the path has a key TrustKit cannot hash (TSKTrustEvaluationErrorCouldNotGenerateSpkiHash).
    public static let trustKitCouldNotGenerateSPKIHash = Self(code: "trustKitCouldNotGenerateSPKIHash")
}
