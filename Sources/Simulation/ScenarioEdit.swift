/// A change a learner makes to a lesson's settings, with the sentence that says what changed.
///
/// Front ends apply edits and re-run the result for real; they never change a scenario themselves, so
/// every edit is worded once, here.
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

    /// The edited scenario and what changed ("pinning mode none → certificate").
    public func apply(to scenario: Scenario) -> (scenario: Scenario, change: String) {
        var edited = scenario
        let policy = scenario.client.policy
        switch self {
        case .toggleAllowInvalidCertificates:
            edited.client.policy.allowInvalidCertificates.toggle()
            return (edited, "allowInvalidCertificates \(yesNo(policy.allowInvalidCertificates)) → \(yesNo(!policy.allowInvalidCertificates))")
        case .toggleValidatesDomainName:
            edited.client.policy.validatesDomainName.toggle()
            return (edited, "validatesDomainName \(yesNo(policy.validatesDomainName)) → \(yesNo(!policy.validatesDomainName))")
        case .nextPinningMode:
            let modes = SSLPinningMode.allCases
            let next = modes[((modes.firstIndex(of: policy.pinningMode) ?? -1) + 1) % modes.count]
            edited.client.policy.pinningMode = next
            return (edited, "pinning mode \(policy.pinningMode) → \(next)")
        case .nextAttack:
            edited.attacker = scenario.attacker.next(in: scenario)
            return (edited, "attack \(scenario.attacker.summary) → \(edited.attacker.summary)")
        case .togglePin(let id):
            let adding = !policy.pinnedCertificates.contains(id)
            edited.client.policy.pinnedCertificates = adding ? policy.pinnedCertificates + [id] : policy.pinnedCertificates.filter { $0 != id }
            return (edited, adding ? "pinned '\(id)'" : "unpinned '\(id)'")
        case .matrixCell(let matrix, let cellPolicy, let column):
            let label = cellPolicy.label.split(separator: " ").joined(separator: " ")
            return (matrix.scenario(for: cellPolicy, column), "matrix cell: \(label), \(column.rawValue)")
        }
    }

    private func yesNo(_ value: Bool) -> String { value ? "YES" : "NO" }
}

extension Scenario {
    /// Ids of every certificate in the world, authorities first: what a learner may pin.
    public var certificateIDs: [String] { world.authorities.map(\.id) + world.leaves.map(\.id) }
}
