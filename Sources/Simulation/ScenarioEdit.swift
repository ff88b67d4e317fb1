import Foundation

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
    /// Back to the lesson as written.
    case reset(lesson: Scenario)

    /// True when the edit changes what the matrix runs on (the device's trust, the clock, the domain,
    /// the server's versions): a matrix computed before it no longer describes this world.
    public var changesTheMatrix: Bool {
        switch self {
        case .toggleAttackerCA, .toggleClock, .toggleDomain, .nextTLSVersions, .reset: true
        case .toggleAllowInvalidCertificates, .toggleValidatesDomainName, .nextPinningMode, .nextAttack, .togglePin, .matrixCell: false
        }
    }

    /// The edited scenario and what changed ("pinning mode none → certificate").
    public func apply(to scenario: Scenario) -> (scenario: Scenario, change: String) {
        var edited = scenario
        let policy = scenario.client.policy
        switch self {
        case .toggleAllowInvalidCertificates: edited.client.policy.allowInvalidCertificates.toggle()
        case .toggleValidatesDomainName: edited.client.policy.validatesDomainName.toggle()
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
        case .toggleDomain: edited.client.passesDomain.toggle()
        case .nextTLSVersions:
            let cycle = ServerSpec.versionChoices
            edited.server.versions = cycle[((cycle.firstIndex(of: scenario.server.versions) ?? -1) + 1) % cycle.count]
        case .reset(let lesson):
            return (lesson, "reset to the lesson as written")
        }
        return (edited, edited.changes(from: scenario).joined(separator: ", "))
    }
}

extension Scenario {
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
