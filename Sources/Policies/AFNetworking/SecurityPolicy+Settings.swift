extension SecurityPolicy {
    /// "pinning mode certificate, allowInvalidCertificates NO, validatesDomainName YES": the policy's settings,
    /// only the properties its release has; what is pinned is for the caller to name.
    public var settings: [String] {
        var settings = ["pinning mode \(SSLPinningMode)", "allowInvalidCertificates \(Self.yesNo(allowInvalidCertificates))"]
        if version.hasValidatesDomainName { settings.append("validatesDomainName \(Self.yesNo(validatesDomainName))") }
        if version.hasValidatesCertificateChain { settings.append("validatesCertificateChain \(Self.yesNo(validatesCertificateChain))") }
        return settings
    }

    /// How Objective-C writes a `BOOL`.
    static func yesNo(_ value: Bool) -> String { value ? "YES" : "NO" }
}
