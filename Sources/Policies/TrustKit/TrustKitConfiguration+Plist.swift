import Foundation
import PKI

extension TrustKitConfiguration {
    /// `TSKConfiguration` as an app's Info.plist writes it, each pinned domain as TrustKit's own
    /// `TrustKitDomainPolicy`, before TrustKit's checks across domains (`init(pinnedDomains:)` applies them).
    ///
    /// Only what decides a connection is kept. The reporting keys (`TSKReportUris`, `TSKDisableDefaultReportUri`)
    /// and `TSKSwizzleNetworkDelegates` are read and dropped: they change where failures are reported and how
    /// TrustKit is wired in, never whether a chain is trusted. Any other key is refused as unknown.
    public struct Plist: Sendable, Equatable, Decodable {
        /// `TSKPinnedDomains`, by domain name in lowercase.
        public var pinnedDomains: [String: TrustKitDomainPolicy]

        enum CodingKeys: String, CodingKey, CaseIterable {
            case swizzle = "TSKSwizzleNetworkDelegates"
            case pinnedDomains = "TSKPinnedDomains"
        }

        enum DomainKeys: String, CodingKey, CaseIterable {
            case hashes = "TSKPublicKeyHashes"
            case includeSubdomains = "TSKIncludeSubdomains"
            case enforce = "TSKEnforcePinning"
            case expiration = "TSKExpirationDate"
            case exclude = "TSKExcludeSubdomainFromParentPolicy"
            case reportURIs = "TSKReportUris"
            case disableDefaultReport = "TSKDisableDefaultReportUri"
            case algorithms = "TSKPublicKeyAlgorithms"
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.strictContainer(CodingKeys.self)
            _ = try container.decodeIfPresent(Bool.self, forKey: .swizzle)
            pinnedDomains = [:]
            guard container.contains(.pinnedDomains) else { return }
            let domains = try container.nestedContainer(keyedBy: AnyKey.self, forKey: .pinnedDomains)
            for key in domains.allKeys {
                guard HostName.isValid(key.stringValue), key.stringValue == key.stringValue.lowercased() else {
                    throw DecodingError.dataCorruptedError(
                        forKey: key, in: domains, debugDescription: "'\(key.stringValue)' is not a domain name in lowercase (no scheme, port or wildcard)")
                }
                let entry = try domains.superDecoder(forKey: key).strictContainer(DomainKeys.self)
                let hashes = try entry.decodeIfPresent([String].self, forKey: .hashes) ?? []
                for (index, hash) in hashes.enumerated() where SPKIPin(base64: hash) == nil {
                    throw DecodingError.dataCorrupted(
                        .init(
                            codingPath: entry.codingPath + [DomainKeys.hashes, AnyKey(intValue: index)],
                            debugDescription: "'\(hash)' is not the base64 of a 32-byte SHA-256 digest"))
                }
                let expiration = try entry.decodeIfPresent(String.self, forKey: .expiration)
                if let expiration, CalendarDay.date(expiration) == nil {
                    throw DecodingError.dataCorruptedError(
                        forKey: .expiration, in: entry, debugDescription: "'\(expiration)' is not a date written yyyy-MM-dd")
                }
                _ = try entry.decodeIfPresent([String].self, forKey: .reportURIs)
                _ = try entry.decodeIfPresent(Bool.self, forKey: .disableDefaultReport)
                _ = try entry.decodeIfPresent([String].self, forKey: .algorithms)
                pinnedDomains[key.stringValue] = TrustKitDomainPolicy(
                    publicKeyHashes: hashes, includeSubdomains: try entry.decodeIfPresent(Bool.self, forKey: .includeSubdomains) ?? false,
                    enforcePinning: try entry.decodeIfPresent(Bool.self, forKey: .enforce) ?? true, expirationDate: expiration,
                    excludeSubdomainFromParentPolicy: try entry.decodeIfPresent(Bool.self, forKey: .exclude) ?? false)
            }
        }

        /// The pinned domain whose policy covers `host`, found as TrustKit finds it: its own entry, else the
        /// closest parent with `TSKIncludeSubdomains`.
        public func domain(covering host: String) -> (String, TrustKitDomainPolicy)? {
            TrustKitConfiguration.lookUp(host, in: pinnedDomains).flatMap { key in pinnedDomains[key].map { (key, $0) } }
        }
    }
}
