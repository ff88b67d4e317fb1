extension AppTransportSecurity {
    /// The Info.plist as one line, naming only the keys that are set: "Apple's defaults (no
    /// NSAppTransportSecurity keys)", "NSAllowsArbitraryLoads YES", "NSExceptionDomains 'bank.test'
    /// (NSExceptionAllowsInsecureHTTPLoads YES)", "NSPinnedDomains 'bank.test' (NSPinnedLeafIdentities 2)", or "off: the app was linked before the iOS 9 SDK".
    public var summary: String {
        if linkedBeforeIOS9 { return "off: the app was linked before the iOS 9 SDK" }
        var parts: [String] = []
        if allowsArbitraryLoads { parts.append("NSAllowsArbitraryLoads YES") }
        for (domain, entry) in exceptionDomains.sorted(by: { $0.key < $1.key }) {
            let keys = entry.setKeys
            parts.append("NSExceptionDomains '\(domain)'" + (keys.isEmpty ? " (no keys: Apple's defaults)" : " (\(keys.joined(separator: ", ")))"))
        }
        parts += pinnedDomainsSummary
        return parts.isEmpty ? "Apple's defaults (no NSAppTransportSecurity keys)" : parts.joined(separator: "; ")
    }

    /// One "NSPinnedDomains 'bank.test' (NSPinnedLeafIdentities 2)" per entry, in domain order.
    var pinnedDomainsSummary: [String] {
        pinnedDomains.sorted(by: { $0.key < $1.key }).map { domain, entry in "NSPinnedDomains '\(domain)' (\(entry.setKeys.joined(separator: ", ")))" }
    }
}

extension AppTransportSecurity.ExceptionDomain {
    /// The keys that differ from Apple's defaults, as an Info.plist would spell them.
    public var setKeys: [String] {
        var keys: [String] = []
        if includesSubdomains { keys.append("NSIncludesSubdomains YES") }
        if allowsInsecureHTTPLoads { keys.append("NSExceptionAllowsInsecureHTTPLoads YES") }
        if minimumTLSVersion != .tls12 { keys.append("NSExceptionMinimumTLSVersion \(minimumTLSVersion.infoPlistValue)") }
        if !requiresForwardSecrecy { keys.append("NSExceptionRequiresForwardSecrecy NO") }
        return keys
    }
}
