import Foundation
import PKI

/// An app's `res/xml/network_security_config.xml`, element for element, as an XML parser produces it.
///
/// ```xml
/// <network-security-config>
///   <base-config cleartextTrafficPermitted="false">           → baseConfig
///     <trust-anchors><certificates src="system"/></trust-anchors>
///     <certificateTransparency enabled="true"/>               → certificateTransparency (Android 16 on)
///   </base-config>
///   <domain-config>                                           → domainConfigs[0]
///     <domain includeSubdomains="true">bank.test</domain>     → domains
///     <trust-anchors>                                         → trustAnchors
///       <certificates src="@raw/bank_ca" overridePins="false"/>
///     </trust-anchors>
///     <pin-set expiration="2027-01-01">                       → pinSet
///       <pin digest="SHA-256">base64 SPKI hash</pin>
///     </pin-set>
///     <domain-config>…</domain-config>                        → domainConfigs (nested: inherits what it leaves unset)
///   </domain-config>
///   <debug-overrides>                                         → debugOverrides (used only when the app is debuggable)
///     <trust-anchors><certificates src="user"/></trust-anchors>
///   </debug-overrides>
/// </network-security-config>
/// ```
/// An element left out is nil: the value is inherited from the enclosing `domain-config`, then
/// `base-config`, then the platform default (`NetworkSecurityConfig.getDefaultBuilder`).
/// `init(xml:depthLimit:)` reads the file; a lesson's pins build one in code.
public struct NetworkSecurityConfig: Sendable, Equatable {
    /// What an app targets when a lesson does not say: a current API level, so user-added CAs are not trusted.
    public static let defaultTargetSdkVersion = 34
    /// Android 6 (API 23, M): the last target whose default trusts the user-added CA store.
    public static let lastSdkTrustingUserCAs = 23
    /// Android 9 (API 28, P): from this target on, cleartext traffic is refused by default.
    public static let firstSdkRefusingCleartext = 28
    /// Android 17 (API 37): from this target on, Certificate Transparency is required by default
    /// (`DEFAULT_ENABLE_CERTIFICATE_TRANSPARENCY`, enabled after Android 16, API 36).
    public static let firstSdkRequiringCertificateTransparency = 37
    /// Android 17 (API 37): the newest target a lesson or an audit may name (Docs/peers.md §7 lists what each changes).
    public static let latestTargetSdkVersion = 37

    /// `<base-config>`, or nil when the file has none (the platform default applies).
    public var baseConfig: BaseConfig?
    /// The top-level `<domain-config>` elements, in file order.
    public var domainConfigs: [DomainConfig]
    /// The `<trust-anchors>` of `<debug-overrides>`, or nil when there are none.
    public var debugOverrides: [CertificatesEntry]?

    public init(baseConfig: BaseConfig? = nil, domainConfigs: [DomainConfig] = [], debugOverrides: [CertificatesEntry]? = nil) {
        self.baseConfig = baseConfig
        self.domainConfigs = domainConfigs
        self.debugOverrides = debugOverrides
    }

    /// Every `<domain-config>`, nested ones after their parent, in file order.
    public var allDomainConfigs: [DomainConfig] {
        func flatten(_ config: DomainConfig) -> [DomainConfig] { [config] + config.domainConfigs.flatMap(flatten) }
        return domainConfigs.flatMap(flatten)
    }

    /// The `<domain>` that governs `host` as `ApplicationConfig.getConfigForHostname` finds it (an exact name
    /// first, else the longest with `includeSubdomains`), with its `domain-config` and the enclosing ones,
    /// innermost first; nil when no `domain-config` covers `host`. `host` is compared as given.
    public func domainMatch(for host: String) -> (domain: Domain, chain: [DomainConfig])? {
        var flattened: [(domain: Domain, chain: [DomainConfig])] = []
        func visit(_ config: DomainConfig, parents: [DomainConfig]) {
            let chain = [config] + parents
            flattened += config.domains.map { ($0, chain) }
            for child in config.domainConfigs { visit(child, parents: chain) }
        }
        for config in domainConfigs { visit(config, parents: []) }
        return flattened.first { $0.domain.name == host }
            ?? flattened.filter { $0.domain.includeSubdomains && host.hasSuffix("." + $0.domain.name) }.max { $0.domain.name.count < $1.domain.name.count }
    }

    /// `<base-config>`: the settings for every host no `domain-config` covers. It cannot hold a pin-set.
    public struct BaseConfig: Sendable, Equatable {
        /// `cleartextTrafficPermitted`; nil inherits the platform default (permitted below API 28).
        public var cleartextTrafficPermitted: Bool?
        /// `<trust-anchors>`; nil inherits the platform default.
        public var trustAnchors: [CertificatesEntry]?
        /// `<certificateTransparency enabled="…">`; nil when the element is absent.
        public var certificateTransparency: Bool?

        public init(cleartextTrafficPermitted: Bool? = nil, trustAnchors: [CertificatesEntry]? = nil, certificateTransparency: Bool? = nil) {
            self.cleartextTrafficPermitted = cleartextTrafficPermitted
            self.trustAnchors = trustAnchors
            self.certificateTransparency = certificateTransparency
        }
    }

    /// `<domain-config>`: settings for the hosts its `<domain>` elements name.
    public struct DomainConfig: Sendable, Equatable {
        /// The `<domain>` elements (at least one in a valid file).
        public var domains: [Domain]
        public var cleartextTrafficPermitted: Bool?
        public var trustAnchors: [CertificatesEntry]?
        /// `<pin-set>`; nil inherits the enclosing `domain-config`'s, and none at all pins nothing.
        public var pinSet: PinSet?
        /// Nested `<domain-config>` elements, which inherit what they leave unset from this one.
        public var domainConfigs: [DomainConfig]
        /// `<certificateTransparency enabled="…">`; nil when the element is absent.
        public var certificateTransparency: Bool?

        public init(
            domains: [Domain], cleartextTrafficPermitted: Bool? = nil, trustAnchors: [CertificatesEntry]? = nil, pinSet: PinSet? = nil,
            domainConfigs: [DomainConfig] = [], certificateTransparency: Bool? = nil
        ) {
            self.domains = domains
            self.cleartextTrafficPermitted = cleartextTrafficPermitted
            self.trustAnchors = trustAnchors
            self.pinSet = pinSet
            self.domainConfigs = domainConfigs
            self.certificateTransparency = certificateTransparency
        }
    }

    /// `<domain includeSubdomains="…">name</domain>`.
    public struct Domain: Sendable, Hashable {
        /// The host name, lowercased as Android stores it.
        public var name: String
        /// `includeSubdomains`, false by default.
        public var includeSubdomains: Bool

        public init(_ name: String, includeSubdomains: Bool = false) {
            self.name = name.lowercased()
            self.includeSubdomains = includeSubdomains
        }

        /// "'bank.test'" or "'bank.test' and its subdomains".
        var phrase: String { "'\(name)'" + (includeSubdomains ? " and its subdomains" : "") }
    }

    /// `<certificates src="…" overridePins="…"/>` inside `<trust-anchors>`.
    public struct CertificatesEntry: Sendable, Equatable {
        /// Where the anchors come from.
        public enum Source: Sendable, Equatable {
            /// `src="system"`: Android's system CA store.
            case system
            /// `src="user"`: the CAs the user added in Settings.
            case user
            /// `src="@raw/name"`: certificates bundled in the app; any of them may end a chain.
            case resource(name: String, certificates: [Certificate])

            /// True for `user` and `@raw/` anchors: a config whose own trust anchors include one does not inherit a
            /// Certificate Transparency requirement (`CertificatesEntryRef.disableCT`).
            public var disablesCertificateTransparency: Bool {
                if case .system = self { return false }
                return true
            }

            /// "system", "user", "@raw/bank_ca": as the XML writes it.
            public var src: String {
                switch self {
                case .system: "system"
                case .user: "user"
                case .resource(let name, _): name
                }
            }
        }

        public var source: Source
        /// `overridePins`; nil takes the default, false, except under `debug-overrides` where it is true.
        public var overridePins: Bool?

        public init(_ source: Source, overridePins: Bool? = nil) {
            self.source = source
            self.overridePins = overridePins
        }
    }

    /// `<pin-set expiration="yyyy-MM-dd">` with its `<pin digest="SHA-256">` elements.
    public struct PinSet: Sendable, Equatable {
        public var pins: [Pin]
        /// The `expiration` date's first instant (UTC); nil when the attribute is absent. After it the pins are ignored.
        public var expiration: Date?

        public init(pins: [Pin], expiration: Date? = nil) {
            self.pins = pins
            self.expiration = expiration
        }
    }

    /// `<pin digest="SHA-256">base64</pin>`: the SHA-256 of a SubjectPublicKeyInfo.
    public struct Pin: Sendable, Hashable, CustomStringConvertible {
        /// The base64 digest, as the element's text.
        public let digest: String

        /// Android accepts only `digest="SHA-256"` and a 32-byte base64 digest.
        public init(digestAlgorithm: String = "SHA-256", base64 digest: String) throws(CertificatePinnerError) {
            guard digestAlgorithm == "SHA-256" else { throw .unsupportedDigest(digestAlgorithm) }
            guard SPKIPin(base64: digest) != nil else { throw .invalidPinHash(digest) }
            self.digest = digest
        }

        /// The pin of `certificate`'s public key.
        public init(certificate: Certificate) { digest = certificate.publicKeySHA256Base64 }

        /// "SHA-256/…".
        public var description: String { "SHA-256/\(digest)" }
    }
}
