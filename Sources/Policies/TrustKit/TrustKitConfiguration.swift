import Foundation

/// TrustKit's `TSKConfiguration` (Info.plist, or the dictionary given to `+[TrustKit initSharedInstanceWithConfiguration:]`),
/// reduced to what decides a connection: `TSKPinnedDomains`, one policy per domain.
///
/// The initializer applies `parse_configuration.m`'s rules and throws, as TrustKit raises its
/// "TrustKit configuration invalid" exception, with TrustKit's own message; a value of this type is
/// therefore always a configuration TrustKit would have started with.
public struct TrustKitConfiguration: Sendable, Equatable {
    /// `TSKPinnedDomains`: the pinning policy of each domain, by the domain as written.
    public let pinnedDomains: [String: TrustKitDomainPolicy]

    /// Validates as `parseTrustKitConfiguration` does: at least one domain; each a host name with a
    /// public suffix and a label before it; every `TSKPublicKeyHashes` entry base64 of 32 bytes; at
    /// least two distinct pins when `TSKEnforcePinning` is YES (a backup pin), one in report-only; a
    /// `TSKExcludeSubdomainFromParentPolicy` entry with no other keys and a parent policy that covers it.
    /// Domains are checked in alphabetical order (TrustKit walks an unordered dictionary).
    public init(pinnedDomains: [String: TrustKitDomainPolicy]) throws(TrustKitConfigurationError) {
        guard !pinnedDomains.isEmpty else {
            throw TrustKitConfigurationError(
                reason:
                    "TrustKit was initialized with no pinned domains. The configuration format has changed: ensure your domain pinning "
                    + "policies are under the TSKPinnedDomains key within TSKConfiguration.")
        }
        for (domain, policy) in pinnedDomains.sorted(by: { $0.key < $1.key }) {
            guard TrustKitDomainNames.registryLength(of: domain) > 0 else {
                throw TrustKitConfigurationError(reason: "TrustKit was initialized with an invalid domain \(domain)")
            }
            if policy.excludeSubdomainFromParentPolicy {
                guard policy == .excludedFromParentPolicy else {
                    throw TrustKitConfigurationError(
                        reason:
                            "TrustKit was initialized with TSKExcludeSubdomainFromParentPolicy for domain \(domain) but detected additional configuration keys")
                }
                continue
            }
            var pins = Set<SPKIPin>()
            for pin in policy.publicKeyHashes {
                // [[NSData alloc] initWithBase64EncodedString:…] is nil for bad base64, so its length is 0 too.
                guard let hash = SPKIPin(base64: pin) else {
                    throw TrustKitConfigurationError(reason: "TrustKit was initialized with an invalid Pin \(pin) for domain \(domain)")
                }
                pins.insert(hash)
            }
            let required = policy.enforcePinning ? 2 : 1
            guard pins.count >= required else {
                throw TrustKitConfigurationError(
                    reason:
                        "TrustKit was initialized with less than \(required) pins (ie. no backup pins) for domain \(domain). This might brick "
                        + "your App; please review the Getting Started guide in ./docs/getting-started.md")
            }
        }
        for (domain, policy) in pinnedDomains.sorted(by: { $0.key < $1.key }) where policy.excludeSubdomainFromParentPolicy {
            // TrustKit looks the parent up for "a" + domain, so that the excluded entry itself is not found.
            guard Self.lookUp("a" + domain, in: pinnedDomains) != nil else {
                throw TrustKitConfigurationError(
                    reason:
                        "TrustKit was initialized with TSKExcludeSubdomainFromParentPolicy for domain \(domain) but could not find a policy for a parent domain"
                )
            }
        }
        self.pinnedDomains = pinnedDomains
    }

    /// `getPinningConfigurationKeyForDomain`: the entry whose key is exactly `host`, else the
    /// `TSKIncludeSubdomains` entry that is the longest parent of `host`; nil when none covers it.
    public func policyKey(forHost host: String) -> String? { Self.lookUp(host, in: pinnedDomains) }

    /// The key of the entry that governs `host`: its own, else the longest parent with `TSKIncludeSubdomains`.
    public static func lookUp(_ host: String, in domains: [String: TrustKitDomainPolicy]) -> String? {
        if domains[host] != nil { return host }
        // Sorted so that two parents of the same length (which cannot both be parents) never depend on dictionary order.
        return domains.keys.sorted()
            .filter { domains[$0]?.includeSubdomains == true && TrustKitDomainNames.isSubdomain(host, of: $0) }
            .max { $0.count < $1.count }
    }
}

/// One `TSKPinnedDomains` entry, with TrustKit's keys and defaults.
public struct TrustKitDomainPolicy: Sendable, Equatable {
    /// `TSKPublicKeyHashes`: base64 SHA-256 of a SubjectPublicKeyInfo (`Certificate.publicKeySHA256Base64`).
    public var publicKeyHashes: [String]
    /// `TSKIncludeSubdomains` (default NO): the policy also covers every name under the domain.
    public var includeSubdomains: Bool
    /// `TSKEnforcePinning` (default YES). NO is report-only: a connection whose chain has no pinned key
    /// is allowed and only reported.
    public var enforcePinning: Bool
    /// `TSKExpirationDate`, "yyyy-MM-dd" in UTC (default none). After that day began the domain is
    /// treated as not pinned. A string that does not read as such a date is ignored, as TrustKit's date
    /// formatter returns nil for it and the policy never expires.
    public var expirationDate: String?
    /// `TSKExcludeSubdomainFromParentPolicy` (default NO): a name under an includeSubdomains domain that
    /// is not pinned. Such an entry may have no other key; use `excludedFromParentPolicy`.
    public var excludeSubdomainFromParentPolicy: Bool

    public init(
        publicKeyHashes: [String], includeSubdomains: Bool = false, enforcePinning: Bool = true, expirationDate: String? = nil,
        excludeSubdomainFromParentPolicy: Bool = false
    ) {
        self.publicKeyHashes = publicKeyHashes
        self.includeSubdomains = includeSubdomains
        self.enforcePinning = enforcePinning
        self.expirationDate = expirationDate
        self.excludeSubdomainFromParentPolicy = excludeSubdomainFromParentPolicy
    }

    /// An entry with only `TSKExcludeSubdomainFromParentPolicy` YES.
    public static let excludedFromParentPolicy = TrustKitDomainPolicy(publicKeyHashes: [], excludeSubdomainFromParentPolicy: true)

    /// The instant the policy expires (00:00 UTC of `expirationDate`), or nil when it never does.
    public var expiration: Date? { expirationDate.flatMap(CalendarDay.date) }

    /// The distinct pins; the initializer of `TrustKitConfiguration` checked that each is one.
    var pinnedHashes: Set<SPKIPin> { Set(publicKeyHashes.compactMap(SPKIPin.init(base64:))) }
}

/// TrustKit's "TrustKit configuration invalid" exception, with its reason as TrustKit words it.
public struct TrustKitConfigurationError: Error, Equatable, CustomStringConvertible {
    /// TrustKit's reason, e.g. "TrustKit was initialized with an invalid Pin … for domain bank.test".
    public let reason: String

    public init(reason: String) { self.reason = reason }

    /// "TrustKit configuration invalid: REASON".
    public var description: String { "TrustKit configuration invalid: \(reason)" }
}

/// The domain arithmetic TrustKit does with its public-suffix registry (`GetRegistryLength`), without
/// the list: mitmsim reads the last label as the public suffix (see Docs/peers.md).
enum TrustKitDomainNames {
    /// The length of the public suffix of `domain`, 0 when `domain` is not a host name with a label
    /// before its suffix (as `GetRegistryLength` is 0 for "com" or "bank..test").
    static func registryLength(of domain: String) -> Int {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        let isLabel: (Substring) -> Bool = { label in
            !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        }
        guard labels.count >= 2, labels.allSatisfy(isLabel), let suffix = labels.last, suffix.contains(where: \.isLetter) else { return 0 }
        return suffix.count
    }

    /// `isSubdomain`: `host` is longer than `domain`, has the same public suffix, and ends with "." + `domain`.
    static func isSubdomain(_ host: String, of domain: String) -> Bool {
        let suffix = registryLength(of: domain)
        guard host.count > domain.count, suffix > 0, registryLength(of: host) == suffix, host.hasSuffix("." + domain) else { return false }
        return true
    }
}
