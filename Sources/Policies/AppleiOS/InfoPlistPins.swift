import Foundation
import PKI

/// An iOS app's `NSPinnedDomains`, with the key of each world certificate it names: what every SSL policy with a host
/// name created in the app's process carries (`SSLPins`), so whichever code evaluates the chain meets them: URLSession's
/// default handling, ATS, AFNetworking, Alamofire's evaluators or TrustKit.
public struct InfoPlistPins: Sendable, Hashable {
    /// The Info.plist's `NSAppTransportSecurity`, whose `pinnedDomains` these are.
    public var ats: AppTransportSecurity
    /// The base64 SHA-256 of the SubjectPublicKeyInfo of each world certificate `ats.pinnedDomains` names by id.
    public var pinnedKeys: [String: String]

    public init(ats: AppTransportSecurity = AppTransportSecurity(), pinnedKeys: [String: String] = [:]) {
        self.ats = ats
        self.pinnedKeys = pinnedKeys
    }

    /// `trust` as the app's process evaluates it: from iOS 14 every SSL policy for a host covered by an entry carries
    /// the entry's keys; iOS 12 does not read the key (`readsPinnedDomains`).
    public func applied(to trust: ServerTrust) -> ServerTrust {
        guard Self.readsPinnedDomains(trust.platform), !ats.pinnedDomains.isEmpty else { return trust }
        var trust = trust
        trust.pinsForHost = { [self] in sslPins(forHost: $0) }
        return trust
    }

    /// `connection` with its trust as the app's process evaluates it (`applied(to:)`).
    public func applied(to connection: PresentedConnection) -> PresentedConnection {
        var connection = connection
        connection.serverTrust = applied(to: connection.serverTrust)
        return connection
    }

    /// A library's settings lines and, when the Info.plist pins a domain, the line that says so.
    public func settingsLines(_ lines: [String]) -> [String] {
        let entries = ats.pinnedDomainsSummary
        guard !entries.isEmpty else { return lines }
        return lines + [
            "Info.plist: \(entries.joined(separator: "; ")); from iOS 14 every SSL policy the app's process creates for a covered host carries them"
        ]
    }

    /// Whether the system reads `NSPinnedDomains` on `platform`: Apple documents the key from iOS 14.0, so not on
    /// iOS 12; `Platform.iOS13` stands for iOS 13–15 and applies it as 14 and 15 do (Docs/policy.md says so).
    static func readsPinnedDomains(_ platform: Platform) -> Bool { platform != .iOS12 }

    /// The pins `SecPolicyCreateSSL` adds to an SSL policy for `host` in this app's process; nil when no entry covers
    /// the host. An identity that is not the base64 of a SHA-256 digest matches no key, as in trustd.
    func sslPins(forHost host: String) -> SSLPins? {
        guard let pins = ats.pins(forHost: host) else { return nil }
        func digests(_ identities: [AppTransportSecurity.PinnedIdentity]) -> Set<Data> {
            Set(
                identities.compactMap { identity in
                    switch identity {
                    case .spkiSHA256Base64(let base64): SPKIPin(base64: base64)?.digest
                    case .certificate(let id): pinnedKeys[id].flatMap(SPKIPin.init(base64:))?.digest
                    }
                })
        }
        return SSLPins(leaf: pins.leafIdentities.map(digests), authorities: pins.caIdentities.map(digests))
    }
}
