import Foundation
import Policies

/// A change a learner makes to a lesson's settings, with the sentence that says what changed.
///
/// Front ends apply edits and re-run the result for real; they never change a scenario themselves, so
/// every edit is worded once, here (in the words of `Scenario.changes(from:)`).
public enum ScenarioEdit: Sendable {
    case toggleAllowInvalidCertificates
    case toggleValidatesDomainName
    /// none → publicKey → certificate → none.
    case nextPinningMode
    /// The next of `AttackSpec.choices(in:)`.
    case nextAttack
    /// Pin the certificate with this world id, or unpin it.
    case togglePin(String)
    /// Load a matrix cell: its staged world, its policy and its attack, exactly as the matrix ran it.
    case matrixCell(Matrix, Matrix.Policy, Matrix.Column)
    /// Install the attacker's CA on the device, or remove it (`Scenario.attackerAuthority(lesson:)`).
    case toggleAttackerCA(lesson: Scenario)
    /// Move the clock between the lesson's time and a day after the server's leaf expires.
    case toggleClock(lesson: Scenario)
    /// Hand the policy nil instead of the host, or the host again.
    case toggleDomain
    /// The server's TLS versions: any → 1.2 only → 1.3 only → any.
    case nextTLSVersions
    /// The next AFNetworking release, 4 → 2.6 → 2.5.3 → … → 2.1 → 2.0 → 4 (`Scenario.running(_:)`); from a peer library, 4.
    case nextLibrary
    /// Who answers the server-trust challenge: afnetworking → acceptAll → systemDefault → afnetworking.
    case nextChallengeHandler
    /// ATS's `NSAllowsArbitraryLoads` YES or NO.
    case toggleArbitraryLoads
    /// `NSExceptionAllowsInsecureHTTPLoads` YES in an `NSExceptionDomains` entry for the server's host, or
    /// back to the entry `lesson` has for it (none, or its own without the key). Other entries stay.
    case toggleInsecureHTTPException(lesson: Scenario)
    /// The `NSPinnedDomains` entries that cover the server's host: the lesson's, then only the first identity of
    /// each list (no backup), then none, then the lesson's again. Other entries stay.
    case nextPinnedIdentities(lesson: Scenario)
    /// The attacker inside the app's process: its hooks off, or on (`lesson`'s hooks, or when it has none every
    /// hook of the registry, as a tester runs every unpinning script at once). The network attack stays.
    case toggleHooks(lesson: Scenario)
    /// Back to the lesson as written.
    case reset(lesson: Scenario)

    /// True when the edit changes what the matrix runs on (the device's trust, the clock, the domain,
    /// the server's versions, the app's challenge handler and ATS): a matrix computed before it no longer
    /// describes this world. The matrix's rows are AFNetworking 4's settings, whatever the lesson's release.
    public var changesTheMatrix: Bool {
        switch self {
        case .toggleAttackerCA, .toggleClock, .toggleDomain, .nextTLSVersions, .nextChallengeHandler, .toggleArbitraryLoads,
            .toggleInsecureHTTPException, .nextPinnedIdentities, .reset:
            true
        case .toggleAllowInvalidCertificates, .toggleValidatesDomainName, .nextPinningMode, .nextAttack, .togglePin, .matrixCell, .nextLibrary,
            .toggleHooks:
            false
        }
    }

    /// The edited scenario and what changed ("pinning mode none → certificate").
    public func apply(to scenario: Scenario) -> (scenario: Scenario, change: String) {
        var edited = scenario
        let policy = scenario.client.policy
        switch self {
        case .toggleAllowInvalidCertificates: edited.client.policy.allowInvalidCertificates.toggle()
        case .toggleValidatesDomainName:
            guard let release = scenario.client.library.afnetworking else {
                return (scenario, "validatesDomainName unchanged: \(scenario.client.library) has no validatesDomainName (an AFSecurityPolicy property)")
            }
            guard release.hasValidatesDomainName else {
                return (scenario, "validatesDomainName unchanged: \(release.rawValue) has no validatesDomainName (AFNetworking 2.1 added it)")
            }
            edited.client.policy.validatesDomainName.toggle()
        case .nextPinningMode:
            let modes = SSLPinningMode.allCases
            edited.client.policy.pinningMode = modes[((modes.firstIndex(of: policy.pinningMode) ?? -1) + 1) % modes.count]
        case .nextAttack: edited.attacker = scenario.attacker.next(in: scenario)
        case .togglePin(let id):
            edited.client.policy.pinnedCertificates =
                policy.pinnedCertificates.contains(id) ? policy.pinnedCertificates.filter { $0 != id } : policy.pinnedCertificates + [id]
        case .matrixCell(let matrix, let cellPolicy, let column):
            let label = cellPolicy.label.split(separator: " ").joined(separator: " ")
            return (matrix.scenario(for: cellPolicy, column), "matrix cell: \(label), \(column.rawValue)")
        case .toggleAttackerCA(let lesson):
            guard let id = scenario.attackerAuthority(lesson: lesson), let index = edited.world.authorities.firstIndex(where: { $0.id == id })
            else { return (scenario, "device trust store unchanged: this world has no attacker's CA to install") }
            // Not trusted → installed and fully trusted → installed without full trust → not trusted.
            let cycle: [DeviceTrust?] = [nil, .userInstalled, .userInstalledWithoutFullTrust]
            let now = cycle.firstIndex(of: edited.world.authorities[index].deviceTrust) ?? 0
            edited.world.authorities[index].deviceTrust = cycle[(now + 1) % cycle.count]
        case .toggleClock(let lesson):
            guard scenario.clock == lesson.clock else {
                edited.clock = lesson.clock
                return (edited, edited.changes(from: scenario).joined(separator: ", ") + ", the lesson's time")
            }
            guard let expiry = scenario.serverLeafExpiry else { return (scenario, "clock unchanged: the server's leaf is not in world.leaves") }
            edited.freezeDefaultDates()
            edited.clock = expiry.addingTimeInterval(86_400)
            return (edited, edited.changes(from: scenario).joined(separator: ", ") + ", a day after '\(scenario.server.leaf)' expires")
        case .toggleDomain:
            guard let release = scenario.client.library.afnetworking else {
                return (scenario, "domain unchanged: \(scenario.client.library) is handed no domain (AFSecurityPolicy's forDomain: argument)")
            }
            guard release.takesDomain else {
                return (scenario, "domain unchanged: \(release.rawValue) is handed no domain (AFNetworking 2.1 added forDomain:)")
            }
            edited.client.passesDomain.toggle()
        case .nextTLSVersions:
            let cycle = ServerSpec.versionChoices
            edited.server.versions = cycle[((cycle.firstIndex(of: scenario.server.versions) ?? -1) + 1) % cycle.count]
        case .nextLibrary:
            let releases = AFNetworkingVersion.allCases
            let current = scenario.client.library.afnetworking.flatMap(releases.firstIndex(of:)) ?? -1
            return scenario.running(releases[(current + 1) % releases.count])
        case .nextChallengeHandler:
            let handlers = ChallengeHandler.allCases
            edited.client.challengeHandler = handlers[((handlers.firstIndex(of: scenario.client.challengeHandler) ?? -1) + 1) % handlers.count]
        case .toggleArbitraryLoads:
            edited.client.ats.allowsArbitraryLoads.toggle()
            edited.client.infoPlist = nil
        case .toggleInsecureHTTPException(let lesson):
            // Entry names are lowercase (the loader refuses others), and ATS matches hosts in any case.
            let host = scenario.server.host.lowercased()
            let original = lesson.client.ats.exceptionDomains[host]
            if scenario.client.ats.exceptionDomains[host]?.allowsInsecureHTTPLoads == true {
                edited.client.ats.exceptionDomains[host] = original?.allowsInsecureHTTPLoads == false ? original : nil
            } else {
                var entry = scenario.client.ats.exceptionDomains[host] ?? original ?? AppTransportSecurity.ExceptionDomain()
                entry.allowsInsecureHTTPLoads = true
                edited.client.ats.exceptionDomains[host] = entry
            }
            edited.client.infoPlist = nil
        case .nextPinnedIdentities(let lesson):
            let host = scenario.server.host
            guard let covering = lesson.client.ats.pins(forHost: host)?.domains else {
                return (scenario, "NSPinnedDomains unchanged: the lesson pins no key for '\(host)'")
            }
            let written = lesson.client.ats.pinnedDomains
            var firstOnly = written
            var removed = written
            for domain in covering {
                firstOnly[domain]?.caIdentities = written[domain]?.caIdentities.map { Array($0.prefix(1)) }
                firstOnly[domain]?.leafIdentities = written[domain]?.leafIdentities.map { Array($0.prefix(1)) }
                removed[domain] = nil
            }
            let cycle = firstOnly == written ? [written, removed] : [written, firstOnly, removed]
            let now = cycle.firstIndex(of: scenario.client.ats.pinnedDomains) ?? cycle.count - 1
            edited.client.ats.pinnedDomains = cycle[(now + 1) % cycle.count]
            edited.client.infoPlist = nil
        case .toggleHooks(let lesson):
            let on = lesson.attacker.hooks.isEmpty ? scenario.hookingEveryTool.attacker.hooks : lesson.attacker.hooks
            edited.attacker.hooks = scenario.attacker.hooks.isEmpty ? on : []
        case .reset(let lesson):
            return (lesson, "reset to the lesson as written")
        }
        return (edited, edited.changes(from: scenario).joined(separator: ", "))
    }
}

extension Scenario {
    /// This scenario with the attacker also inside the app's process, running every hook of the registry (what
    /// `compare --hooked` and the `F` key turn on); the network attack stays.
    public var hookingEveryTool: Scenario {
        var hooked = self
        hooked.attacker.hooks = client.libraries.hooks.map(\.name)
        return hooked
    }

    /// This scenario with the app on `release`. The policy keeps every setting `release` has; one it lacks
    /// takes the value the loader gives it (validatesCertificateChain YES, validatesDomainName at 2.0's
    /// default, the host as domain), and validatesDomainName leaving 2.0 takes `release`'s default. The
    /// change line says why a setting moved. A release with validatesCertificateChain is entered with it
    /// YES, because a release without it always holds YES. A peer library's policy holds AFNetworking 4's
    /// defaults besides its pins, so it is left as AFNetworking 4 would be.
    func running(_ release: AFNetworkingVersion) -> (scenario: Scenario, change: String) {
        var edited = self
        let (old, mode) = (client.library.afnetworking ?? .v4, client.policy.pinningMode)
        edited.client.library = .afnetworking(release)
        if !release.hasValidatesDomainName || !old.hasValidatesDomainName {
            edited.client.policy.validatesDomainName = release.defaultValidatesDomainName(for: mode)
        }
        if !release.hasValidatesCertificateChain { edited.client.policy.validatesCertificateChain = true }
        if !release.takesDomain { edited.client.passesDomain = true }
        let (before, after) = (client, edited.client)
        let lacks =
            (before.policy.validatesDomainName != after.policy.validatesDomainName && !release.hasValidatesDomainName ? ["validatesDomainName"] : [])
            + (before.policy.validatesCertificateChain != after.policy.validatesCertificateChain ? ["validatesCertificateChain"] : [])
            + (before.passesDomain != after.passesDomain ? ["domain argument"] : [])
        let missing = lacks.count > 1 ? lacks.dropLast().joined(separator: ", ") + " or " + lacks[lacks.count - 1] : lacks.joined()
        var why = lacks.isEmpty ? [] : ["\(release.rawValue) has no \(missing)"]
        if before.policy.validatesDomainName != after.policy.validatesDomainName, release.hasValidatesDomainName {
            why.append("validatesDomainName is \(release.rawValue)'s default for pinning mode \(mode)")
        }
        return (edited, edited.changes(from: self).joined(separator: ", ") + (why.isEmpty ? "" : " (\(why.joined(separator: "; ")))"))
    }

    /// Ids of every certificate in the world, authorities first: what a learner may pin.
    public var certificateIDs: [String] { world.authorities.map(\.id) + world.leaves.map(\.id) }

    /// The attacker's CA, which the device trust store key installs or removes: the authority the attack
    /// forges with, else the first authority outside the server's chain (and not the client CA) that the
    /// device of `lesson`, the lesson as written, does not trust. Nil when the world has none.
    public func attackerAuthority(lesson: Scenario) -> String? {
        if attacker.attack == .forge, let authority = attacker.authority { return authority }
        var served = Set(server.chain)
        var issuer = world.leaves.first { $0.id == server.leaf }?.issuer
        while let id = issuer, !served.contains(id) {
            served.insert(id)
            issuer = world.authorities.first { $0.id == id }?.issuer
        }
        if let clientCA = world.clientIdentity?.issuer { served.insert(clientCA) }
        let untrusted = Set(lesson.world.authorities.filter { $0.deviceTrust?.isAnchor != true }.map(\.id))
        return world.authorities.first { !served.contains($0.id) && untrusted.contains($0.id) }?.id
    }

    /// When the server's leaf stops being valid, from its spec as `World` builds it (its own date, or the default).
    var serverLeafExpiry: Date? {
        world.leaves.first { $0.id == server.leaf }.map { $0.notAfter ?? World.defaultValidity(at: clock).notAfter }
    }

    /// Writes out the dates every certificate would take by default at the current clock, so moving the
    /// clock moves time, not the certificates with it.
    mutating func freezeDefaultDates() {
        let defaults = World.defaultValidity(at: clock)
        for index in world.authorities.indices {
            world.authorities[index].notBefore = world.authorities[index].notBefore ?? defaults.notBefore
            world.authorities[index].notAfter = world.authorities[index].notAfter ?? defaults.notAfter
        }
        for index in world.leaves.indices {
            world.leaves[index].notBefore = world.leaves[index].notBefore ?? defaults.notBefore
            world.leaves[index].notAfter = world.leaves[index].notAfter ?? defaults.notAfter
        }
    }
}

extension AFNetworkingVersion {
    /// Whether `evaluateServerTrust:` is handed a domain: AFNetworking 2.1 added `forDomain:`, with validatesDomainName.
    var takesDomain: Bool { hasValidatesDomainName }
}
