import Foundation
import LoopbackTLS
import PKI
import Policies

extension Scenario {
    /// Each setting of this scenario that differs from `lesson`, as "setting before → after": the
    /// AFNetworking release and its policy, the domain handed to it, the challenge handler, App Transport
    /// Security, the attack, the device trust store, the clock, the server's TLS versions and the world's
    /// certificates. Empty when nothing differs.
    public func changes(from lesson: Scenario) -> [String] {
        var changes: [String] = []
        func compare(_ name: String, _ before: String, _ after: String) {
            if before != after { changes.append("\(name) \(before) → \(after)") }
        }
        let (old, new) = (lesson.client.policy, client.policy)
        // An entry's keys that differ from Apple's defaults; "Apple's defaults" when none does (the entry still
        // takes the domain out of `NSAllowsArbitraryLoads`).
        func keys(_ entry: AppTransportSecurity.ExceptionDomain) -> String {
            entry.setKeys.isEmpty ? "Apple's defaults" : entry.setKeys.joined(separator: " and ")
        }
        compare("library", lesson.client.library.rawValue, client.library.rawValue)
        compare("pinning mode", old.pinningMode.rawValue, new.pinningMode.rawValue)
        compare("allowInvalidCertificates", Self.yesNo(old.allowInvalidCertificates), Self.yesNo(new.allowInvalidCertificates))
        compare("validatesDomainName", Self.yesNo(old.validatesDomainName), Self.yesNo(new.validatesDomainName))
        compare("validatesCertificateChain", Self.yesNo(old.validatesCertificateChain), Self.yesNo(new.validatesCertificateChain))
        compare("pinned", Self.pinned(old.pinnedCertificates), Self.pinned(new.pinnedCertificates))
        compare("domain", lesson.domainDescription, domainDescription)
        compare("challenge handler", lesson.client.challengeHandler.rawValue, client.challengeHandler.rawValue)
        let (oldATS, newATS) = (lesson.client.ats, client.ats)
        compare("linkedBeforeIOS9", Self.yesNo(oldATS.linkedBeforeIOS9), Self.yesNo(newATS.linkedBeforeIOS9))
        compare("ATS NSAllowsArbitraryLoads", Self.yesNo(oldATS.allowsArbitraryLoads), Self.yesNo(newATS.allowsArbitraryLoads))
        for domain in Set(oldATS.exceptionDomains.keys).union(newATS.exceptionDomains.keys).sorted() {
            compare(
                "ATS NSExceptionDomains entry '\(domain)'", oldATS.exceptionDomains[domain].map(keys) ?? "none",
                newATS.exceptionDomains[domain].map(keys) ?? "none")
        }
        for domain in Set(oldATS.pinnedDomains.keys).union(newATS.pinnedDomains.keys).sorted() {
            compare(
                "ATS NSPinnedDomains entry '\(domain)'", oldATS.pinnedDomains[domain].map(Self.identities) ?? "none",
                newATS.pinnedDomains[domain].map(Self.identities) ?? "none")
        }
        compare("attack", lesson.attacker.summary, attacker.summary)
        let trustBefore = Dictionary(lesson.world.authorities.map { ($0.id, $0.deviceTrust) }, uniquingKeysWith: { first, _ in first })
        for authority in world.authorities {
            compare("device trust for '\(authority.id)'", Self.trust(trustBefore[authority.id] ?? nil), Self.trust(authority.deviceTrust))
        }
        compare("clock", lesson.clock.formatted(.iso8601), clock.formatted(.iso8601))
        compare("server TLS versions", ServerSpec.describe(lesson.server.versions), ServerSpec.describe(server.versions))
        let added = Set(certificateIDs).subtracting(lesson.certificateIDs)
        if !added.isEmpty { changes.append("certificates added: " + certificateIDs.filter(added.contains).map { "'\($0)'" }.joined(separator: ", ")) }
        return changes
    }

    /// "'bank.test'", or "nil" when the policy is handed no domain.
    var domainDescription: String { client.passesDomain ? "'\(server.host)'" : "nil" }

    static func trust(_ trust: DeviceTrust?) -> String { trust?.phrase ?? "none" }

    static func yesNo(_ value: Bool) -> String { value ? "YES" : "NO" }

    /// "NSPinnedLeafIdentities 'bank-leaf', 'bank-backup'": an `NSPinnedDomains` entry's lists, each identity by
    /// the certificate it names or the digest written.
    static func identities(_ entry: AppTransportSecurity.PinnedDomain) -> String {
        func list(_ key: String, _ identities: [AppTransportSecurity.PinnedIdentity]?) -> String? {
            identities.map { identities in
                let names = identities.map { identity in
                    switch identity {
                    case .certificate(let id): "'\(id)'"
                    case .spkiSHA256Base64(let base64): "'\(base64)'"
                    }
                }
                return "\(key) " + (names.isEmpty ? "(empty)" : names.joined(separator: ", "))
            }
        }
        return [list("NSPinnedCAIdentities", entry.caIdentities), list("NSPinnedLeafIdentities", entry.leafIdentities)].compactMap { $0 }
            .joined(separator: " and ")
    }

    static func pinned(_ ids: [String]) -> String { ids.isEmpty ? "nothing" : ids.map { "'\($0)'" }.joined(separator: ", ") }
}

extension ServerSpec {
    /// The TLS versions a server may offer, in the order the console cycles them: any, 1.2 only, 1.3 only.
    static let versionChoices: [ClosedRange<TLSVersion>] = [.tls12 ... .tls13, .tls12 ... .tls12, .tls13 ... .tls13]

    /// "any", "1.2 only", "1.0 only" and so on, as `server.tlsVersion` names them.
    static func describe(_ versions: ClosedRange<TLSVersion>) -> String {
        versions.lowerBound != versions.upperBound ? "any" : versions.lowerBound.rawValue.replacingOccurrences(of: "TLS ", with: "") + " only"
    }
}
