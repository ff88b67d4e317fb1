import Foundation
import PKI
import Policies

/// One host an audit connects to, and which configurations name it.
public struct AuditHost: Sendable, Equatable {
    /// The host the client connects to.
    public let name: String
    /// The wildcard pattern `name` stands for (OkHttp's `*.example.com`); nil for a host named as it is.
    public let pattern: String?
    /// Where it was named: "NSExceptionDomains", "TSKPinnedDomains", "domain-config", "OkHttp pins", "AFNetworking domains".
    public var sources: [String]
}

/// One pin that applies to a host, as its configuration wrote it, and what it pins in the generated world.
public struct AuditPin: Sendable {
    /// Where it is written: "TSKPinnedDomains.api.example.com", "pins.txt line 3", "pinnedCertificates 'certs/api.cer'".
    public let source: String
    /// The base64 SHA-256 of the pinned SubjectPublicKeyInfo.
    public let hash: String
    /// Which configuration it belongs to: pins of one group are one pin list (a backup pin is another of the same group).
    public let group: String
    /// The generated certificate it pins: `leaf`, `intermediate-1` (above the leaf), `root`, or `backup-N` (a
    /// certificate the server never sends); nil for a hash that pins nothing the world holds.
    public internal(set) var worldID: String?
    /// True when it was matched by the assumption that stands in for `--chain` (the first pin is the leaf's key).
    public internal(set) var assumed = false
    /// The pinned file's certificate, for AFNetworking, which pins certificates rather than hashes.
    let certificate: Certificate?
    /// True for a pin only a CA's key can match (`NSPinnedCAIdentities`): without `--chain` the first is taken as the intermediate's.
    var pinsAuthority = false
}

/// The world generated for one host, shaped like the real one: its scenario and each pin's place in it.
struct AuditWorld: Sendable {
    let scenario: Scenario
    let pins: [AuditPin]
    /// How the world was shaped, and what was assumed, one sentence each.
    let shape: [String]
}

extension AuditConfiguration {
    /// Every host the configurations cover, in the order of the inputs; a wildcard gets a representative host.
    /// With no host named anywhere, `www.example.com` stands for the app's hosts.
    public func hosts() throws -> [AuditHost] {
        var hosts: [AuditHost] = []
        func add(_ name: String, pattern: String? = nil, _ source: String) {
            if let index = hosts.firstIndex(where: { $0.name == name }) {
                if !hosts[index].sources.contains(source) { hosts[index].sources.append(source) }
            } else {
                hosts.append(AuditHost(name: name, pattern: pattern, sources: [source]))
            }
        }
        for domain in afnetworking?.value.domains ?? [] { add(domain, "AFNetworking domains") }
        for domain in (infoPlist?.value.ats.exceptionDomains.keys).map({ $0.sorted() }) ?? [] { add(domain, "NSExceptionDomains") }
        for domain in (infoPlist?.value.ats.pinnedDomains.keys).map({ $0.sorted() }) ?? [] { add(domain, "NSPinnedDomains") }
        for domain in (infoPlist?.value.trustKit?.pinnedDomains.keys).map({ $0.sorted() }) ?? [] { add(domain, "TSKPinnedDomains") }
        for configuration in networkSecurityConfig?.value.allDomainConfigs ?? [] {
            for domain in configuration.domains { add(domain.name, "domain-config") }
        }
        for (_, pin) in okHttpPins?.value ?? [] {
            add(pin.representativeHost, pattern: pin.pattern.hasPrefix("*") ? pin.pattern : nil, "OkHttp pins")
        }
        if hosts.isEmpty { add("www.example.com", "no configuration names a host: a representative one") }
        guard hosts.count <= AuditLimits.hosts else {
            throw AuditError(
                "the configurations name \(hosts.count) hosts, the most one audit covers is \(AuditLimits.hosts) (each is a world and every attack)")
        }
        return hosts
    }

    /// The `--chain` whose leaf names `host`, if one does.
    func chain(for host: String) -> Source<[Certificate]>? {
        chains.first { chain in chain.value.first.map { HostNameMatcher.certificate($0, names: host) } ?? false }
    }

    /// Every pin that applies to `host`, as written, not yet placed in a world.
    func pins(for host: String) -> [AuditPin] {
        var pins: [AuditPin] = []
        if let af = afnetworking, af.value.pinningMode != .none {
            pins += af.value.pinnedCertificates.map {
                AuditPin(source: "pinnedCertificates '\($0.label)'", hash: $0.publicKeySHA256Base64, group: af.file, certificate: $0)
            }
        }
        if let ats = infoPlist?.value.ats, let covering = ats.pins(forHost: host)?.domains {
            for domain in covering {
                let entry = ats.pinnedDomains[domain]
                for (key, identities) in [("NSPinnedLeafIdentities", entry?.leafIdentities), ("NSPinnedCAIdentities", entry?.caIdentities)] {
                    for case .spkiSHA256Base64(let hash) in identities ?? [] {
                        let place = "NSPinnedDomains.\(domain).\(key)"
                        var pin = AuditPin(source: place, hash: hash, group: place, certificate: nil)
                        pin.pinsAuthority = key == "NSPinnedCAIdentities"
                        pins.append(pin)
                    }
                }
            }
        }
        if let trustKit = infoPlist?.value.trustKit, let (domain, entry) = trustKit.domain(covering: host) {
            pins += entry.publicKeyHashes.map {
                AuditPin(source: "TSKPinnedDomains.\(domain)", hash: $0, group: "TSKPinnedDomains.\(domain)", certificate: nil)
            }
        }
        if let nsc = networkSecurityConfig, let (domain, pinSet) = nsc.value.pinSet(covering: host) {
            pins += pinSet.pins.map { AuditPin(source: "\(nsc.file) pin-set of \(domain)", hash: $0.digest, group: "pin-set of \(domain)", certificate: nil) }
        }
        if let okHttp = okHttpPins {
            pins += okHttp.value.filter { $0.pin.matchesHostname(host) }.map {
                AuditPin(source: "\(okHttp.file) line \($0.line)", hash: $0.pin.hash, group: "OkHttp \($0.pin.pattern)", certificate: nil)
            }
        }
        return pins
    }

    /// The world for `host` at `clock`: a public root the device trusts, the intermediates, the host's leaf,
    /// shaped like the `--chain` that names the host when there is one, with every pin placed by role.
    func world(for host: AuditHost, clock: Date) throws -> AuditWorld {
        let given = chain(for: host.name)
        var shape: [String] = []
        var pins = pins(for: host.name)
        // The generated chain, leaf first: ids and the certificates they are shaped like.
        var roles: [(id: String, model: Certificate?)] = [("leaf", given?.value.first)]
        if let chain = given?.value {
            for (index, certificate) in chain.enumerated().dropFirst() where !(certificate.isSelfIssued && index == chain.count - 1) {
                roles.append(("intermediate-\(index)", certificate))
            }
            roles.append(("root", chain.last.flatMap { $0.isSelfIssued && chain.count > 1 ? $0 : nil }))
            shape.append("shaped like \(given?.file ?? "") (names, depth, key types and dates)")
        } else {
            roles += [("intermediate-1", nil), ("root", nil)]
            shape.append(
                "no --chain names this host: a generated chain of a public root the device trusts, one intermediate and the leaf, P-256 keys")
        }
        // Pins are matched by the key they hash; without a chain, by what the pinned certificate is, or by assumption.
        let byHash = Dictionary(
            (given?.value ?? []).enumerated().map { index, certificate in
                (certificate.publicKeySHA256Base64, index == 0 ? "leaf" : roles.first { $0.model == certificate }?.id ?? "root")
            }, uniquingKeysWith: { first, _ in first })
        var backups: [String] = []
        var firstOfGroup = Set<String>()
        for index in pins.indices {
            let pin = pins[index]
            if given != nil {
                pins[index].worldID = byHash[pin.hash]
            } else if let certificate = pin.certificate {
                // The first pinned leaf that names the host stands for the server's leaf; another is a backup.
                let isLeaf = !certificate.isAuthority && HostNameMatcher.certificate(certificate, names: host.name) && !pins.contains { $0.worldID == "leaf" }
                pins[index].worldID = certificate.isAuthority ? (certificate.isSelfIssued ? "root" : "intermediate-1") : isLeaf ? "leaf" : nil
            } else if firstOfGroup.insert(pin.group).inserted {
                pins[index].worldID = pin.pinsAuthority ? "intermediate-1" : "leaf"
                pins[index].assumed = true
            }
            if pins[index].worldID == nil, let certificate = pin.certificate {
                // The same certificate pinned twice (two files with the same bytes) is one certificate of the world.
                if let same = pins[..<index].first(where: { $0.certificate == certificate }) {
                    pins[index].worldID = same.worldID
                } else {
                    backups.append("backup-\(backups.count + 1)")
                    pins[index].worldID = backups.last
                }
            }
        }
        if given == nil, pins.contains(where: \.assumed) {
            let authorities = pins.contains { $0.assumed && $0.pinsAuthority } ? " (of an NSPinnedCAIdentities list, as the intermediate's key)" : ""
            shape.append("no --chain: the first pin of each pin list is taken as the leaf's key\(authorities), the others as backup pins")
        }
        let scenario = try Self.scenario(host: host.name, roles: roles, backups: backups, clock: clock, shape: &shape)
        return AuditWorld(scenario: scenario, pins: pins, shape: shape)
    }

    /// The generated world as a scenario, read by the loader like any lesson so it meets the same checks.
    private static func scenario(
        host: String, roles: [(id: String, model: Certificate?)], backups: [String], clock: Date, shape: inout [String]
    ) throws -> Scenario {
        let time = ISO8601DateFormatter()
        var rsaBudget = ScenarioLimits.rsaKeys
        func certificate(_ id: String, _ model: Certificate?) -> [String: Any] {
            guard let model else { return ["id": id] }
            var entry: [String: Any] = ["id": id, "notBefore": time.string(from: model.notBefore), "notAfter": time.string(from: model.notAfter)]
            let keyType = Self.keyType(of: model)
            if keyType == .p256, model.keyDescription.hasPrefix("RSA ") {
                shape.append(
                    "\(id) has a P-256 key where the real one is \(model.keyDescription) (every client mitmsim models judges an RSA key of 2048 bits "
                        + "or more as it judges a P-256 key, and a large RSA key takes up to a second to make)")
            } else if keyType != .p256, rsaBudget > 0 {
                rsaBudget -= 1
                entry["keyType"] = keyType.rawValue
            } else if keyType != .p256 {
                shape.append("\(id) has a P-256 key instead of \(model.keyDescription) (a world makes at most \(ScenarioLimits.rsaKeys) RSA keys)")
            }
            return entry
        }
        let leafModel = roles[0].model
        var leaf = certificate("leaf", leafModel)
        leaf["issuer"] = roles[1].id
        leaf["dnsNames"] = [host]
        if let name = leafModel?.subject.commonName, name.unicodeScalars.count <= ScenarioLimits.subjectNameLength { leaf["commonName"] = name }
        if let name = leafModel?.subject.organization, name.unicodeScalars.count <= ScenarioLimits.subjectNameLength { leaf["organization"] = name }
        let authorities = roles.enumerated().dropFirst().map { index, role in
            var entry = certificate(role.id, role.model)
            let fallback = role.id == "root" ? "Public Root CA" : "Issuing CA \(index)"
            // A root that is not given is named by its child's issuer, as the real one is.
            let named = role.model?.subject.commonName ?? (role.id == "root" ? roles[index - 1].model?.issuer.commonName : nil)
            entry["name"] = named.flatMap { $0.unicodeScalars.count <= ScenarioLimits.subjectNameLength ? $0 : nil } ?? fallback
            if index + 1 < roles.count { entry["issuer"] = roles[index + 1].id } else { entry["deviceTrust"] = "system" }
            return entry
        }
        let backupLeaves: [[String: Any]] = backups.map { ["id": $0, "issuer": "self", "dnsNames": [host]] }
        let sent = roles.dropFirst().filter { role in role.id != "root" || role.model != nil }.map(\.id)
        let document: [String: Any] = [
            "version": 3, "title": "audit of \(host)", "group": "audit", "summary": "The audited configuration against \(host)",
            "lesson": ["story": "", "reveal": ""], "clock": time.string(from: clock),
            "world": ["authorities": authorities, "leaves": [leaf] + backupLeaves],
            "server": ["host": host, "leaf": "leaf", "chain": sent],
            "client": ["library": AFNetworkingVersion.v4.rawValue, "policy": [:] as [String: Any], "challengeHandler": "systemDefault"],
            "expect": ["trusted": true, "attackerSawPlaintext": false, "serverReceivedRequest": true],
        ]
        // JSON is YAML: the loader reads the world exactly as it reads a lesson file.
        let json = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        do {
            return try ScenarioLoader.decode(json, file: "the world generated for \(host)", id: "audit-\(host)")
        } catch {
            throw AuditError("\(error)")
        }
    }

    /// The key type mitmsim makes that every client it models judges as it judges `certificate`'s key: an RSA key
    /// under 2048 bits, too small for Apple's TLS rules (`AppleTLSRules`), is made as RSA-1024; any other key as
    /// P-256, which those rules (RSA ≥ 2048 or EC ≥ 256) and every other client judge alike, and which takes
    /// microseconds to make where an RSA-3072 key took up to a second.
    static func keyType(of certificate: Certificate) -> KeyType {
        let key = certificate.keyDescription
        guard key.hasPrefix("RSA "), let bits = Int(key.dropFirst(4)), bits < 2048 else { return .p256 }
        return .rsa1024
    }
}

extension NetworkSecurityConfig {
    /// The pin-set of the domain configuration that covers `host`, inherited from the configuration it is
    /// nested in when it has none, with the `<domain>` that matched.
    func pinSet(covering host: String) -> (String, PinSet)? {
        guard let match = domainMatch(for: host), let pinSet = match.chain.lazy.compactMap(\.pinSet).first else { return nil }
        return (match.domain.name, pinSet)
    }
}
