import Foundation
import PKI

/// A scenario's certificates, generated with OpenSSL, and how they relate: who issued each one, what
/// the real server sends, the app's client identity and the CA that issued it, and what the device trusts.
///
/// Every relationship is resolved once, here, from the scenario's ids; nothing downstream searches by
/// signature or unwraps a lookup.
public struct World: Sendable {
    /// One certificate of the world with its key, by the id the scenario gave it.
    public struct Entry: Sendable {
        public enum Role: Sendable { case authority, leaf }

        public let id: String
        public let identity: Identity
        public let role: Role
        /// The authority that signed it; nil when it signs itself.
        public let issuerID: String?
        /// How the device trusts it: a public root built into iOS, or a CA the user installed; nil for none.
        public let deviceTrust: DeviceTrust?

        public var certificate: Certificate { identity.certificate }
    }

    /// The real server: its host, its key and certificate, and what it sends.
    public struct Server: Sendable {
        public let host: String
        public let leaf: Entry
        /// The Certificate message it sends, leaf first.
        public let chain: [Certificate]
        /// The authority at the top of its leaf's issuers (nil for a self-signed leaf).
        public let root: Entry?
    }

    /// The certificate the app presents in two-way TLS, as it ships it.
    public struct ClientIdentity: Sendable {
        public let id: String
        /// Loaded from the `.p12` the app ships, as the two-way TLS articles' challenge block loads theirs.
        public let identity: Identity
        /// The CA that issued it: the only one the bank accepts client certificates from.
        public let issuer: Entry
        public let pkcs12: [UInt8]
        public let password: String
    }

    /// What a world built from a directory took from it and what it made anew, and why.
    public struct Reuse: Sendable {
        /// One certificate made anew although a directory was offered.
        public struct Remade: Sendable {
            public let id: String
            /// "none in mitmsim-lab", "bank-leaf.key is not the key of bank-leaf.pem".
            public let reason: String
        }

        public let directory: String
        /// Ids taken from the directory, in the order the world was built.
        public let reused: [String]
        public let remade: [Remade]
    }

    public let factory: CertificateFactory
    /// Authorities, then leaves, in file order.
    public private(set) var entries: [Entry]
    public let server: Server
    public let client: ClientIdentity?
    /// Nil unless the world was built from a directory (`reusing:`).
    public let reuse: Reuse?
    /// The Certificate Transparency logs running in this world (`world.logs`, or the defaults), in file order.
    public let logs: [CTLog]
    /// The log list the device holds: the logs it knows.
    public let transparencyLogs: CTLogList

    /// The device's trust settings: system roots and installed authorities, each in file order.
    public var deviceTrustStore: DeviceTrustStore {
        func certificates(_ trust: DeviceTrust) -> [Certificate] { entries.filter { $0.deviceTrust == trust }.map(\.certificate) }
        return DeviceTrustStore(
            system: certificates(.system), userInstalled: certificates(.userInstalled),
            installedWithoutFullTrust: certificates(.userInstalledWithoutFullTrust), transparencyLogs: transparencyLogs)
    }

    public subscript(id: String) -> Entry? { entries.first { $0.id == id } }

    /// The certificates above authority `id`, its issuer first, up to its root: what a CT log is given with a leaf it issues.
    public func chain(above id: String) -> [Certificate] {
        var chain: [Certificate] = []
        var next = self[id]?.issuerID
        while let current = next.flatMap({ self[$0] }), chain.count < entries.count {
            chain.append(current.certificate)
            next = current.issuerID
        }
        return chain
    }

    /// The same certificates, with the authority `id` installed and fully trusted by the user.
    public func installing(_ id: String) -> World {
        var world = self
        world.entries = entries.map {
            $0.id == id ? Entry(id: $0.id, identity: $0.identity, role: $0.role, issuerID: $0.issuerID, deviceTrust: .userInstalled) : $0
        }
        return world
    }

    /// When a certificate that gives no dates of its own is valid, in a world built at `clock`.
    public static func defaultValidity(at clock: Date) -> (notBefore: Date, notAfter: Date) {
        (clock.addingTimeInterval(-30 * 86_400), clock.addingTimeInterval(365 * 86_400))
    }

    /// Certificates by id; an unknown id is an error naming `path` (the key the ids came from).
    func certificates(_ ids: [String], file: String, path: String) throws -> [Certificate] {
        try ids.enumerated().map { index, id in try entry(id, file: file, path: "\(path)[\(index)]").certificate }
    }

    func entry(_ id: String, file: String, path: String) throws -> Entry {
        guard let entry = self[id] else { throw ScenarioError(file: file, path: path, reason: "no certificate '\(id)' in world.authorities or world.leaves") }
        return entry
    }

    /// Builds every certificate of `scenario` at `clock` (the scenario's own clock unless given); a certificate the
    /// scenario read from files (`file`, `keyFile`) is taken as it is.
    ///
    /// With `directory` (where `PKIExport` wrote a world before), each certificate whose files there are
    /// still exactly what the scenario asks for is taken from them instead of made anew, so a lab that
    /// restarts keeps its CA and pins; `reuse` says what was taken and why the rest was not.
    ///
    /// An id that names nothing is a `ScenarioError` with the key path it came from (the loader reports
    /// these first, with the same words; a scenario built in code meets them here).
    public init(_ scenario: Scenario, clock: Date? = nil, reusing directory: String? = nil) throws {
        try self.init(scenario, clock: clock, reusing: directory, keys: nil)
    }

    /// As above; with `keys`, each certificate's key is the ring's for its id and key type (`KeyRing`).
    init(_ scenario: Scenario, clock: Date? = nil, reusing directory: String? = nil, keys: KeyRing?) throws {
        let clock = clock ?? scenario.clock
        let exported = directory.map { ExportedPKI(directory: $0, clock: clock) }
        let spec = scenario.world
        let file = scenario.file
        let factory = CertificateFactory(now: clock)
        let (defaultStart, defaultEnd) = Self.defaultValidity(at: clock)
        var built: [String: Entry] = [:]
        func fail(_ path: String, _ reason: String) -> ScenarioError { ScenarioError(file: file, path: path, reason: reason) }

        /// `id`'s identity: read from its file, taken from an earlier export that still matches, or issued now with `key()`.
        /// A leaf whose issuer logs its leaves goes through the precertificate flow; it is taken from an export only when
        /// every log that signed its SCTs kept its key (`ct-log-<id>.key` there), so that they still verify.
        func identity(
            _ id: String, read: CertificateFile?, _ certificate: CertificateSpec, expected: ExportedPKI.Expected, issuer: Entry?,
            logs: [CTLog] = [], key: () throws -> PrivateKey
        ) throws -> Identity {
            if let read { return read.identity.relabeled(id) }
            let logsKept = logs.allSatisfy { keptLogs.contains($0.name) }
            if logsKept, let reused = exported?.identity(id, expected) { return reused }
            if !logsKept { exported?.remake(id, reason: "logged anew: its CT logs' keys are not in the directory") }
            let key = try key()
            guard let issuer, !logs.isEmpty else {
                return Identity(certificate: try factory.issue(certificate, key: key, signedBy: issuer?.identity), privateKey: key)
            }
            let chain = chain(above: issuer)
            return Identity(certificate: try factory.issue(certificate, key: key, signedBy: issuer.identity, chain: chain, loggingTo: logs), privateKey: key)
        }

        func chain(above issuer: Entry) -> [Certificate] {
            var chain: [Certificate] = []
            var next = issuer.issuerID.flatMap { built[$0] }
            while let current = next, chain.count < built.count {
                chain.append(current.certificate)
                next = current.issuerID.flatMap { built[$0] }
            }
            return chain
        }
        var logs: [CTLog] = []
        var keptLogs: Set<String> = []

        // The loader rejects issuer loops, so this recursion ends.
        func authority(_ id: String, _ path: String) throws -> Entry {
            if let done = built[id], done.role == .authority { return done }
            guard let index = spec.authorities.firstIndex(where: { $0.id == id }) else { throw fail(path, "no authority '\(id)' in world.authorities") }
            let definition = spec.authorities[index]
            let issuer = try definition.issuer.map { try authority($0, "world.authorities[\(index)].issuer") }
            var certificate = CertificateSpec.authority(
                label: definition.id, commonName: definition.name, pathLength: definition.pathLength,
                notBefore: definition.notBefore ?? defaultStart, notAfter: definition.notAfter ?? defaultEnd)
            certificate.signatureDigest = definition.signatureDigest
            let expected = ExportedPKI.Expected(
                spec: certificate, explicitNotBefore: definition.notBefore != nil, explicitNotAfter: definition.notAfter != nil,
                issuer: issuer?.certificate, publicKeyInfo: nil)
            let made = try identity(id, read: definition.file, certificate, expected: expected, issuer: issuer) {
                try keys?.key(id, definition.keyType) ?? PrivateKey.generate(definition.keyType)
            }
            let entry = Entry(id: id, identity: made, role: .authority, issuerID: issuer?.id, deviceTrust: definition.deviceTrust)
            built[id] = entry
            return entry
        }

        func leaf(_ id: String, _ path: String) throws -> Entry {
            if let done = built[id], done.role == .leaf { return done }
            guard let index = spec.leaves.firstIndex(where: { $0.id == id }) else { throw fail(path, "no leaf '\(id)' in world.leaves") }
            let definition = spec.leaves[index]
            var certificate = CertificateSpec.serverLeaf(
                label: definition.id, commonName: definition.commonName, organization: definition.organization, dnsNames: definition.dnsNames,
                ipAddresses: definition.ipAddresses, notBefore: definition.notBefore ?? defaultStart, notAfter: definition.notAfter ?? defaultEnd)
            if !definition.extensions { (certificate.basicConstraints, certificate.keyUsage, certificate.extendedKeyUsage) = (nil, nil, nil) }
            certificate.signatureDigest = definition.signatureDigest
            let keyOf = try definition.keyOf.map { try leaf($0, "world.leaves[\(index)].keyOf").identity.privateKey }
            let issuer = definition.issuer == "self" ? nil : try authority(definition.issuer, "world.leaves[\(index)].issuer")
            let expected = ExportedPKI.Expected(
                spec: certificate, explicitNotBefore: definition.notBefore != nil, explicitNotAfter: definition.notAfter != nil,
                issuer: issuer?.certificate, publicKeyInfo: try keyOf?.publicKeyInfo())
            let logged = issuer.map { issuer in logs.filter { spec.logs(of: issuer.id).contains($0.name) } } ?? []
            let made = try identity(id, read: definition.file, certificate, expected: expected, issuer: issuer, logs: logged) {
                try keyOf ?? keys?.key(id, definition.keyType) ?? PrivateKey.generate(definition.keyType)
            }
            let entry = Entry(id: id, identity: made, role: .leaf, issuerID: issuer?.id, deviceTrust: nil)
            built[id] = entry
            return entry
        }

        let authorities = try spec.authorities.enumerated().map { try authority($1.id, "world.authorities[\($0)]") }
        // Like the logs of Apple's program, each accepts every root built into the device.
        let publicRoots = authorities.filter { $0.issuerID == nil && $0.deviceTrust == .system }.map(\.certificate)
        logs = try spec.effectiveLogs.map { log in
            let kept = exported?.logKey(log.id)
            if kept != nil { keptLogs.insert(log.id) }
            return try CTLog(name: log.id, operatorName: log.operatorName, acceptedRoots: publicRoots, key: kept ?? keys?.key("ct-log " + log.id, .p256))
        }
        let entries = try authorities + spec.leaves.enumerated().map { try leaf($1.id, "world.leaves[\($0)]") }
        self.factory = factory
        self.entries = entries
        self.logs = logs
        let known = Set(spec.effectiveLogs.filter(\.knownByDevice).map(\.id))
        transparencyLogs = try CTLogList(logs.filter { known.contains($0.name) }.map(\.listing))

        let served = try leaf(scenario.server.leaf, "server.leaf")
        var root = served.issuerID.flatMap { built[$0] }
        while let next = root?.issuerID.flatMap({ built[$0] }) { root = next }
        let chain = try scenario.server.chain.enumerated().map { index, id in
            guard let entry = built[id] else { throw fail("server.chain[\(index)]", "no certificate '\(id)' in world.authorities or world.leaves") }
            return entry.certificate
        }
        server = Server(host: scenario.server.host, leaf: served, chain: [served.certificate] + chain, root: root)

        client = try spec.clientIdentity.map { client in
            let issuer = try authority(client.issuer, "world.clientIdentity.issuer")
            var certificate = CertificateSpec.serverLeaf(label: client.id, dnsNames: [], notBefore: defaultStart, notAfter: defaultEnd)
            certificate.subject = DistinguishedName(commonName: client.name)
            certificate.extendedKeyUsage = [.clientAuth]
            let expected = ExportedPKI.Expected(
                spec: certificate, explicitNotBefore: false, explicitNotAfter: false, issuer: issuer.certificate, publicKeyInfo: nil)
            if let (shipped, bundle) = exported?.pkcs12(client.id, password: client.password, expected) {
                return ClientIdentity(id: client.id, identity: shipped, issuer: issuer, pkcs12: bundle, password: client.password)
            }
            let made = try factory.makeIdentity(certificate, signedBy: issuer.identity)
            let bundle = try made.pkcs12(password: client.password)
            // The app loads its identity from the .p12 it ships, as the lesson's apps do with client.p12.
            let shipped = try Identity(pkcs12: bundle, password: client.password, source: "\(client.id).p12").relabeled(client.id)
            return ClientIdentity(id: client.id, identity: shipped, issuer: issuer, pkcs12: bundle, password: client.password)
        }
        reuse = exported?.report
    }
}
