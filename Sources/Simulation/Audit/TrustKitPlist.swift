import Foundation
import PKI

/// TrustKit's `TSKConfiguration` from an app's Info.plist, as written: the pinned domains and their keys.
///
/// Only what decides a connection is kept. The reporting keys (`TSKReportUris`, `TSKDisableDefaultReportUri`)
/// and `TSKSwizzleNetworkDelegates` are read and dropped: they change where failures are reported and how
/// TrustKit is wired in, never whether a chain is trusted. Any other key (such as
/// `TSKExcludeSubdomainFromParentPolicy`, which mitmsim does not model) is refused as unknown.
public struct TrustKitPlist: Sendable, Equatable, Decodable {
    /// One entry of `TSKPinnedDomains`.
    public struct Domain: Sendable, Equatable {
        /// `TSKPublicKeyHashes`: base64 SHA-256 digests of SubjectPublicKeyInfo, as written.
        public var publicKeyHashes: [String]
        /// `TSKIncludeSubdomains` (default NO).
        public var includesSubdomains: Bool
        /// `TSKEnforcePinning` (default YES); NO only reports a pin failure and lets the connection through.
        public var enforcesPinning: Bool
        /// `TSKExpirationDate` ("yyyy-MM-dd", UTC): after it, TrustKit stops enforcing this domain's pins.
        public var expirationDate: Date?
    }

    /// `TSKPinnedDomains`, by domain name in lowercase.
    public var pinnedDomains: [String: Domain]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case swizzle = "TSKSwizzleNetworkDelegates"
        case pinnedDomains = "TSKPinnedDomains"
    }

    enum DomainKeys: String, CodingKey, CaseIterable {
        case hashes = "TSKPublicKeyHashes"
        case includeSubdomains = "TSKIncludeSubdomains"
        case enforce = "TSKEnforcePinning"
        case expiration = "TSKExpirationDate"
        case reportURIs = "TSKReportUris"
        case disableDefaultReport = "TSKDisableDefaultReportUri"
        case algorithms = "TSKPublicKeyAlgorithms"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        _ = try container.decodeValueIfPresent(Bool.self, forKey: .swizzle)
        pinnedDomains = [:]
        guard container.contains(.pinnedDomains) else { return }
        let domains = try container.nestedContainer(keyedBy: AnyKey.self, forKey: .pinnedDomains)
        for key in domains.allKeys {
            guard HostName.isValid(key.stringValue), key.stringValue == key.stringValue.lowercased() else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: domains, debugDescription: "'\(key.stringValue)' is not a domain name in lowercase (no scheme, port or wildcard)")
            }
            let entry = try domains.superDecoder(forKey: key).strictContainer(DomainKeys.self)
            let hashes = try entry.decodeStrings(forKey: .hashes)
            for (index, hash) in hashes.enumerated() where !PinDigest.isSHA256Base64(hash) {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: entry.codingPath + [DomainKeys.hashes, AnyKey(intValue: index)],
                        debugDescription: "'\(hash)' is not the base64 of a 32-byte SHA-256 digest"))
            }
            let expiration = try entry.decodeValueIfPresent(String.self, forKey: .expiration)
            let date = try expiration.map { text in
                guard let date = PinDigest.day(text) else {
                    throw DecodingError.dataCorruptedError(forKey: .expiration, in: entry, debugDescription: "'\(text)' is not a date written yyyy-MM-dd")
                }
                return date
            }
            _ = try entry.decodeStrings(forKey: .reportURIs)
            _ = try entry.decodeValueIfPresent(Bool.self, forKey: .disableDefaultReport)
            _ = try entry.decodeStrings(forKey: .algorithms)
            pinnedDomains[key.stringValue] = Domain(
                publicKeyHashes: hashes, includesSubdomains: try entry.decodeValueIfPresent(Bool.self, forKey: .includeSubdomains) ?? false,
                enforcesPinning: try entry.decodeValueIfPresent(Bool.self, forKey: .enforce) ?? true, expirationDate: date)
        }
    }
}

/// What pin files write: base64 SHA-256 digests, and days written yyyy-MM-dd.
enum PinDigest {
    /// True for the base64 of exactly 32 bytes (a SHA-256 digest).
    static func isSHA256Base64(_ text: String) -> Bool { Data(base64Encoded: text)?.count == 32 }

    /// Midnight UTC of `text` written yyyy-MM-dd; nil for anything else.
    static func day(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        guard text.count == 10, let date = formatter.date(from: text) else { return nil }
        return date
    }
}
