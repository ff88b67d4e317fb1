import Simulation

/// The live lab's screen (`mitmsim lab --tui`).
extension Canvas {
    mutating func lab(_ state: ConsoleState) {
        guard let lab = state.lab else { return }
        header("classroom lab: " + lab.title)
        var row = 1
        for (index, command) in lab.commands.enumerated() where row < height / 2 {
            screen.put("\(index + 1). \(command.title)", row: row, column: 1, style: .accent)
            screen.put("like \(command.policy); expect \(command.expected)", row: row + 1, column: 4, style: .dim)
            row += 2
        }
        let window = lab.window
        let kept = window.dropped > 0 ? " (the lab keeps the last \(window.flows.count) of \(window.total.formatted()))" : ""
        rule(row, "intercepted connections, newest last" + kept)
        let room = height - row - 2
        for (offset, flow) in window.flows.suffix(room).enumerated() {
            let style: Style = flow.stolenSecret != nil ? .leaked : flow.outcome == .refused ? .rejected : .normal
            screen.put(flow.description, row: row + 1 + offset, column: 1, style: style)
        }
        if window.flows.isEmpty { screen.put("none yet: paste a command in another terminal", row: row + 1, column: 1, style: .dim) }
        footer("the full commands are printed in the terminal that started the lab and in commands.txt   q stop the lab")
    }
}
