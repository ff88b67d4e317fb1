import PKI

extension AppTransportSecurity {
    /// One entry of `NSPinnedDomains` (iOS 14+): the keys a chain for the domain must hold. Apple asks for at
    /// least one of the two lists; with both, both must match.
    public struct PinnedDomain: Sendable, Hashable {
        /// `NSIncludesSubdomains` (default NO): the entry also covers the names one label below the domain.
        public var includesSubdomains: Bool
        /// `NSPinnedCAIdentities`: a CA certificate of the path (any but the leaf) must have one of these keys; nil when absent.
        public var caIdentities: [PinnedIdentity]?
        /// `NSPinnedLeafIdentities`: the leaf must have one of these keys; nil when absent.
        public var leafIdentities: [PinnedIdentity]?

        public init(includesSubdomains: Bool = false, caIdentities: [PinnedIdentity]? = nil, leafIdentities: [PinnedIdentity]? = nil) {
            self.includesSubdomains = includesSubdomains
            self.caIdentities = caIdentities
            self.leafIdentities = leafIdentities
        }
    }

    /// One dictionary of `NSPinnedCAIdentities` or `NSPinnedLeafIdentities`: a key, by the SHA-256 of its DER
    /// SubjectPublicKeyInfo.
    public enum PinnedIdentity: Sendable, Hashable {
        /// `SPKI-SHA256-BASE64` as an Info.plist writes it.
        case spkiSHA256Base64(String)
        /// The key of a certificate of the lesson's world, by id: keys are generated for each run, so a lesson
        /// names the certificate and the client is given its key's hash (`IOSClient.pinnedKeys`).
        case certificate(String)

        /// The world certificate it names, if it names one.
        public var certificateID: String? {
            if case .certificate(let id) = self { return id }
            return nil
        }
    }

    /// The identities `NSPinnedDomains` requires of a chain for one host, gathered from every entry that covers it.
    public struct Pins: Sendable, Equatable {
        /// The entries that cover the host, as written.
        public var domains: [String]
        /// Nil when no covering entry has `NSPinnedCAIdentities`.
        public var caIdentities: [PinnedIdentity]?
        /// Nil when no covering entry has `NSPinnedLeafIdentities`.
        public var leafIdentities: [PinnedIdentity]?
    }

    /// What `NSPinnedDomains` requires for `host`, or nil when no entry covers it.
    ///
    /// As `parseNSPinnedDomains` in Apple's Security (OSX/sec/Security/SecPolicy.c, Security-61901) reads it: a
    /// trailing dot is dropped; an entry covers the host when its name equals it in any case, or, with
    /// `NSIncludesSubdomains` YES, equals the host without its first label; the lists of every covering entry add up.
    public func pins(forHost host: String) -> Pins? {
        let name = (host.hasSuffix(".") ? String(host.dropLast()) : host).lowercased()
        let labels = name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let parent = labels.count == 2 && !labels[1].isEmpty ? String(labels[1]) : nil
        var pins = Pins(domains: [])
        for (domain, entry) in pinnedDomains.sorted(by: { $0.key < $1.key }) {
            let written = domain.lowercased()
            guard written == name || (entry.includesSubdomains && written == parent) else { continue }
            pins.domains.append(domain)
            if let ca = entry.caIdentities { pins.caIdentities = (pins.caIdentities ?? []) + ca }
            if let leaf = entry.leafIdentities { pins.leafIdentities = (pins.leafIdentities ?? []) + leaf }
        }
        return pins.caIdentities == nil && pins.leafIdentities == nil ? nil : pins
    }
}

extension AppTransportSecurity {
    /// The world certificates `pinnedDomains` names by id, each once, in domain order.
    public var pinnedCertificateIDs: [String] {
        var ids: [String] = []
        for (_, entry) in pinnedDomains.sorted(by: { $0.key < $1.key }) {
            for id in ((entry.caIdentities ?? []) + (entry.leafIdentities ?? [])).compactMap(\.certificateID) where !ids.contains(id) { ids.append(id) }
        }
        return ids
    }
}

extension AppTransportSecurity.PinnedDomain {
    /// The keys as an Info.plist would spell them, with how many identities each list holds.
    public var setKeys: [String] {
        var keys: [String] = []
        if includesSubdomains { keys.append("NSIncludesSubdomains YES") }
        if let caIdentities { keys.append("NSPinnedCAIdentities \(caIdentities.count)") }
        if let leafIdentities { keys.append("NSPinnedLeafIdentities \(leafIdentities.count)") }
        return keys
    }
}
