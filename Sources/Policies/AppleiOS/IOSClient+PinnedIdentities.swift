import Foundation
import PKI

extension IOSClient {
    /// NSPinnedDomains's checks, as the system's SSL policy for `host` makes them on the path it built; nil when no
    /// `NSPinnedDomains` entry covers the host.
    ///
    /// `SecPolicyCreateSSL` (OSX/sec/Security/SecPolicy.c, Security-61901: `SecPolicyAddATSpinningIfInfoSpecified`)
    /// reads the app's Info.plist and adds the pins to the policy's options; trustd then checks them with the
    /// policy's other checks (trust/trustd/SecPolicyServer.c: `SecPolicyCheckLeafSPKISHA256` on the leaf,
    /// `SecPolicyCheckCAspkiSHA256` on every certificate of the path above it, the anchor included). Both are
    /// recoverable failures (SecPolicyChecks.list), and neither makes a pinned CA an anchor: the path must be
    /// trusted first. The verdict is `SSLPins`', the checks every evaluation of the trust with that policy makes.
    func pinnedIdentities(path: [Certificate], host: String, platform: Platform) -> (step: TraceStep, rejection: RejectionReason?)? {
        guard let pins = ats.pins(forHost: host), let keys = infoPlistPins.sslPins(forHost: host) else { return nil }
        let entries = pins.domains.map { "'\($0)'" }.joined(separator: " and ")
        guard InfoPlistPins.readsPinnedDomains(platform) else {
            return (
                TraceStep(
                    .pinnedIdentities, .skipped,
                    "NSPinnedDomains \(entries) covers '\(host)', but iOS 12 does not read the key: iOS 14 was the first to apply it"), nil
            )
        }
        var clauses: [String] = []
        if let leafIdentities = pins.leafIdentities {
            let matched = keys.leafMatches(path: path)
            let has =
                matched ? (leafIdentities.count == 1 ? "has it" : "has one of them") : (leafIdentities.count == 1 ? "does not have it" : "has none of them")
            clauses.append("NSPinnedLeafIdentities lists \(describe(leafIdentities)): the leaf '\(path.first?.label ?? "")' \(has)")
        }
        if let caIdentities = pins.caIdentities {
            let authorities = path.dropFirst()
            let them = caIdentities.count == 1 ? "it" : "one of them"
            let found =
                keys.pinnedAuthority(in: path).map { "'\($0.label)' in the path has \(them)" }
                ?? (authorities.isEmpty ? "the path holds no CA certificate" : "no CA of the path (\(Array(authorities).pathDescription)) has \(them)")
            clauses.append("NSPinnedCAIdentities lists \(describe(caIdentities)): \(found)")
        }
        let both = pins.caIdentities != nil && pins.leafIdentities != nil ? " (with both lists, both must match)" : ""
        let detail = "NSPinnedDomains \(entries) covers '\(host)'\(both). " + clauses.joined(separator: "; ")
        guard keys.failures(path: path, host: host).isEmpty else {
            return (
                TraceStep(
                    .pinnedIdentities, .failed,
                    "\(detail). So the system's SSL policy fails the chain (kSecTrustResultRecoverableTrustFailure), however trusted its anchor"),
                .pinnedIdentityMismatch
            )
        }
        return (TraceStep(.pinnedIdentities, .passed, "\(detail)."), nil)
    }

    /// The Info.plist's pins with the keys of the certificates they name, as the app's process applies them.
    var infoPlistPins: InfoPlistPins { InfoPlistPins(ats: ats, pinnedKeys: pinnedKeys) }

    /// `system` apart from NSPinnedDomains's checks: itself when valid; when those checks are all that failed, the
    /// trusted path they were made on; nil when anything else failed.
    static func apartFromPins(_ system: TrustResult, of trust: ServerTrust) -> TrustResult? {
        guard !system.isValid else { return system }
        guard system.failsOnlyItsPins, let top = system.path.last, let source = trust.source(ofAnchor: top) else { return nil }
        return TrustResult(path: system.path, failures: [], anchor: (top, source))
    }

    /// "the key of 'bank-leaf'", "the keys of 'bank-leaf' and 'bank-leaf-next'", "SPKI-SHA256-BASE64 'Zm9v…'".
    private func describe(_ identities: [AppTransportSecurity.PinnedIdentity]) -> String {
        guard !identities.isEmpty else { return "no identity" }
        let names = identities.map { identity in
            switch identity {
            case .spkiSHA256Base64(let base64): "SPKI-SHA256-BASE64 '\(base64)'"
            case .certificate(let id): "the key of '\(id)'"
            }
        }
        return names.dropLast().joined(separator: ", ") + (names.count > 1 ? " and " : "") + (names.last ?? "")
    }
}
