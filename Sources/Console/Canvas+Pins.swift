import Simulation

/// The pinned certificates: which of the lesson's certificates the policy pins.
extension Canvas {
    mutating func pins(_ state: ConsoleState) {
        guard let scenario = state.scenario else { return }
        header("pinned certificates: \(state.name(scenario))", state)
        let top =
            paragraph(
                "pinning mode \(scenario.client.policy.pinningMode): Space pins or unpins, and the lesson runs again", row: 1, lines: 2, style: .accent) + 1
        let change = (state.revealed ? state.change : state.changeBeforeVerdict).map { Self.wrap($0, width: width - 2) } ?? []
        for (index, id) in scenario.certificateIDs.enumerated() where top + index < height - 2 - change.count {
            let pinned = scenario.client.policy.pinnedCertificates.contains(id)
            let selected = index == state.pinCursor
            if selected { screen.paint(row: top + index, column: 0, width: width, style: .selected) }
            screen.put("[\(pinned ? "x" : " ")] \(id)", row: top + index, column: 2, style: selected ? .selected : pinned ? .accepted : .normal)
        }
        for (index, line) in change.enumerated() { screen.put(line, row: height - 1 - change.count + index, column: 1, style: .accent) }
        footer("↑/↓ move   Space pin/unpin   q back")
    }
}
