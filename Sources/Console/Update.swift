import LoopbackTLS
import Policies
import Simulation

/// Applies one key to the state; returns the work the app must do, if any. Pure: no I/O, no drawing.
public func update(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    if key == .resize { return nil }
    if state.showHelp {
        if key == .character("?") || key == .character("q") || key == .escape { state.showHelp = false }
        return nil
    }
    if state.screen == .picker, state.filtering { return updateFilter(&state, key) }
    if key == .character("?") {
        state.showHelp = true
        return nil
    }
    if state.awaitingPrediction, state.screen == .walkthrough, key == .character("y") || key == .character("n") {
        let accepted = state.report?.trusted ?? false
        let right = (key == .character("y")) == accepted
        state.score = (state.score.right + (right ? 1 : 0), state.score.asked + 1)
        state.predictionResult = right ? "You were right." : "Not this time."
        state.awaitingPrediction = false
        return nil
    }
    switch state.screen {
    case .picker: return updatePicker(&state, key)
    case .walkthrough: return updateWalkthrough(&state, key)
    case .attacker, .inspector:
        if key == .character("q") || key == .escape || key == .character("x") || key == .character("i") { state.screen = .walkthrough }
        return nil
    case .matrix: return updateMatrix(&state, key)
    case .pins: return updatePins(&state, key)
    case .lab: return key == .character("q") || key == .escape ? .quit : nil
    }
}

private func updateFilter(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    switch key {
    case .escape, .tab: state.filtering = false
    case .enter:
        state.filtering = false
        state.selection = min(state.selection, max(0, state.filtered.count - 1))
        return updatePicker(&state, .enter)
    case .backspace: if !state.filter.isEmpty { state.filter.removeLast() }
    case .character(let character): state.filter.append(character)
    case .up, .down: state.filtering = false
        return updatePicker(&state, key)
    default: break
    }
    state.selection = min(state.selection, max(0, state.filtered.count - 1))
    return nil
}

private func updatePicker(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    let count = state.filtered.count
    switch key {
    case .up, .character("k"): state.selection = max(0, state.selection - 1)
    case .down, .character("j"): state.selection = min(max(0, count - 1), state.selection + 1)
    case .home: state.selection = 0
    case .end: state.selection = max(0, count - 1)
    case .character("/"):
        state.filtering = true
    case .escape:
        state.filter = ""
        state.selection = 0
    case .enter:
        guard count > 0 else { return nil }
        state.scenario = state.filtered[state.selection]
        state.report = nil
        state.change = nil
        state.matrix = nil
        return .run
    case .character("q"):
        return .quit
    default: break
    }
    return nil
}

private func updateWalkthrough(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    guard var scenario = state.scenario else { return nil }
    let last = max(0, (state.report?.events.count ?? 1) - 1)
    switch key {
    case .right, .character(" "), .down: state.step = min(last, state.step + 1)
    case .left, .up: state.step = max(0, state.step - 1)
    case .home: state.step = 0
    case .end: state.step = last
    case .pageDown: state.step = min(last, state.step + 10)
    case .pageUp: state.step = max(0, state.step - 10)
    case .character("j"): state.step = state.decidingStep ?? state.step
    case .character("q"), .escape:
        state.screen = .picker
    case .character("x"): state.screen = .attacker
    case .character("i"): state.screen = .inspector
    case .character("P"):
        state.pinCursor = 0
        state.screen = .pins
    case .character("m"):
        state.screen = .matrix
        return state.matrix?.scenarioID == scenario.id ? nil : .computeMatrix
    case .character("a"):
        scenario.client.policy.allowInvalidCertificates.toggle()
        return edit(&state, scenario, "allowInvalidCertificates \(yesNo(!scenario.client.policy.allowInvalidCertificates)) → \(yesNo(scenario.client.policy.allowInvalidCertificates))")
    case .character("d"):
        scenario.client.policy.validatesDomainName.toggle()
        return edit(&state, scenario, "validatesDomainName \(yesNo(!scenario.client.policy.validatesDomainName)) → \(yesNo(scenario.client.policy.validatesDomainName))")
    case .character("p"):
        let modes = SSLPinningMode.allCases
        let before = scenario.client.policy.pinningMode
        scenario.client.policy.pinningMode = modes[(modes.firstIndex(of: before)! + 1) % modes.count]
        return edit(&state, scenario, "pinning mode \(before) → \(scenario.client.policy.pinningMode)")
    case .character("A"):
        let attacks = AttackChoice.available(in: scenario)
        let current = attacks.firstIndex { $0.matches(scenario.attacker) } ?? -1
        let next = attacks[(current + 1) % attacks.count]
        let before = AttackChoice.describe(scenario.attacker)
        scenario.attacker = next.spec
        return edit(&state, scenario, "attack \(before) → \(AttackChoice.describe(scenario.attacker))")
    default: break
    }
    return nil
}

private func updatePins(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    guard var scenario = state.scenario else { return nil }
    let ids = AttackChoice.certificateIDs(in: scenario)
    switch key {
    case .up, .character("k"): state.pinCursor = max(0, state.pinCursor - 1)
    case .down, .character("j"): state.pinCursor = min(max(0, ids.count - 1), state.pinCursor + 1)
    case .character(" "), .enter:
        guard ids.indices.contains(state.pinCursor) else { return nil }
        let id = ids[state.pinCursor]
        var pinned = scenario.client.policy.pinnedCertificates
        let adding = !pinned.contains(id)
        if adding { pinned.append(id) } else { pinned.removeAll { $0 == id } }
        scenario.client.policy.pinnedCertificates = pinned
        return edit(&state, scenario, adding ? "pinned '\(id)'" : "unpinned '\(id)'", stay: true)
    case .character("q"), .escape, .character("P"):
        state.screen = .walkthrough
    default: break
    }
    return nil
}

private func updateMatrix(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    guard let matrix = state.matrix, var scenario = state.scenario else {
        if key == .character("q") || key == .escape { state.screen = .walkthrough }
        return nil
    }
    let rows = matrix.policies.count, columns = matrix.attacks.count
    switch key {
    case .up, .character("k"): state.matrixCursor.row = max(0, state.matrixCursor.row - 1)
    case .down, .character("j"): state.matrixCursor.row = min(rows - 1, state.matrixCursor.row + 1)
    case .left, .character("h"): state.matrixCursor.column = max(0, state.matrixCursor.column - 1)
    case .right, .character("l"): state.matrixCursor.column = min(columns - 1, state.matrixCursor.column + 1)
    case .pageUp: state.matrixCursor.row = max(0, state.matrixCursor.row - 10)
    case .pageDown: state.matrixCursor.row = min(rows - 1, state.matrixCursor.row + 10)
    case .character("q"), .escape, .character("m"): state.screen = .walkthrough
    case .enter:
        let policy = matrix.policies[state.matrixCursor.row]
        let attack = matrix.attacks[state.matrixCursor.column]
        scenario.client.policy = PolicySpec(pinningMode: policy.pinningMode, allowInvalidCertificates: policy.allowInvalidCertificates,
                                            validatesDomainName: policy.validatesDomainName,
                                            pinnedCertificates: matrix.pinnedIDs[policy.pinned].map { [$0] } ?? [])
        var note = "matrix cell: \(policy.label.split(separator: " ").filter { !$0.isEmpty }.joined(separator: " ")), \(attack.rawValue)"
        if let choice = AttackChoice.matching(attack, in: scenario) {
            scenario = choice.applied(to: scenario)
        } else {
            note += " (this lesson's world has no certificates for that attack: the policy is loaded, the attack kept)"
        }
        state.screen = .walkthrough
        return edit(&state, scenario, note)
    default: break
    }
    return nil
}

/// An edit: the new scenario is re-run for real; `change` says what changed once the verdict is in.
private func edit(_ state: inout ConsoleState, _ scenario: Scenario, _ description: String, stay: Bool = false) -> Effect {
    state.scenario = scenario
    state.pendingChange = description
    if !stay { state.screen = .walkthrough }
    return .run
}

private func yesNo(_ value: Bool) -> String { value ? "YES" : "NO" }
