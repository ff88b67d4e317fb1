import PKI

/// App Transport Security as an app's Info.plist (`NSAppTransportSecurity`) configures it.
///
/// Key names are Apple's, so a learner can compare with a real Info.plist. The default is what an app
/// linked against the iOS 9 SDK or later gets with no `NSAppTransportSecurity` dictionary: ATS fully on.
public struct AppTransportSecurity: Sendable, Hashable {
    /// One entry of `NSExceptionDomains`, with Apple's defaults for the keys it leaves out.
    public struct ExceptionDomain: Sendable, Hashable {
        /// `NSIncludesSubdomains` (default NO).
        public var includesSubdomains: Bool
        /// `NSExceptionAllowsInsecureHTTPLoads` (default NO): `http://` allowed, and the server trust left to the app.
        public var allowsInsecureHTTPLoads: Bool
        /// `NSExceptionMinimumTLSVersion` (default `TLSv1.2`).
        public var minimumTLSVersion: TLSVersion
        /// `NSExceptionRequiresForwardSecrecy` (default YES); NO also drops the certificate key-size rule, not the
        /// hash rule nor the TLS version rule.
        public var requiresForwardSecrecy: Bool

        public init(
            includesSubdomains: Bool = false, allowsInsecureHTTPLoads: Bool = false, minimumTLSVersion: TLSVersion = .tls12,
            requiresForwardSecrecy: Bool = true
        ) {
            self.includesSubdomains = includesSubdomains
            self.allowsInsecureHTTPLoads = allowsInsecureHTTPLoads
            self.minimumTLSVersion = minimumTLSVersion
            self.requiresForwardSecrecy = requiresForwardSecrecy
        }
    }

    /// An app linked against an SDK older than iOS 9: ATS does not exist for it, whatever the Info.plist says.
    public var linkedBeforeIOS9: Bool
    /// `NSAllowsArbitraryLoads` (default NO): ATS off for every domain not listed in `exceptionDomains`.
    public var allowsArbitraryLoads: Bool
    /// `NSExceptionDomains`, keyed by domain name as written (Apple asks for lowercase; hosts match it in any case).
    public var exceptionDomains: [String: ExceptionDomain]
    /// `NSPinnedDomains` (iOS 14+), keyed by domain name as written: the keys the system's SSL policy requires
    /// of the chain for that domain (`AppTransportSecurity+PinnedDomains.swift`).
    public var pinnedDomains: [String: PinnedDomain]

    public init(
        linkedBeforeIOS9: Bool = false, allowsArbitraryLoads: Bool = false, exceptionDomains: [String: ExceptionDomain] = [:],
        pinnedDomains: [String: PinnedDomain] = [:]
    ) {
        self.linkedBeforeIOS9 = linkedBeforeIOS9
        self.allowsArbitraryLoads = allowsArbitraryLoads
        self.exceptionDomains = exceptionDomains
        self.pinnedDomains = pinnedDomains
    }
}
