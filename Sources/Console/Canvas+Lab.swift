import Simulation

/// The live lab's screen (`mitmsim lab --tui`).
extension Canvas {
    mutating func lab(_ state: ConsoleState) {
        guard let lab = state.lab else { return }
        header("classroom lab: " + lab.title)
        if lab.showsCommands { return labCommands(lab) }
        let window = lab.window
        let kept = window.dropped > 0 ? " (the lab keeps the last \(window.flows.count) of \(window.total.formatted()))" : ""
        // The latest notice first: a lab that refuses or cannot accept connections says so on the teacher's screen.
        let top = window.notices.last.map { paragraph($0, row: 1, lines: 2, style: .warning) } ?? 1
        rule(top, "intercepted connections, newest last" + kept)
        // Newest at the bottom, each flow whole (wrapped, its later lines indented): what the room watches for
        // (STOLEN, REFUSED) is early in a flow's sentence, so it is on screen at any width.
        let room = height - 2 - top
        var shown: [[String]] = []
        for flow in window.flows.reversed() {
            let lines = Canvas.wrap(flow.description, width: width - 2, hanging: 2)
            let used = shown.reduce(0) { $0 + $1.count }
            guard used + lines.count <= room else {
                if shown.isEmpty { shown.append(Array(lines.prefix(room))) }
                break
            }
            shown.insert(lines, at: 0)
        }
        var row = top + 1
        for (flow, lines) in zip(window.flows.suffix(shown.count), shown) {
            let style: Style = flow.stolenSecret != nil ? .leaked : flow.outcome == .refused ? .rejected : .normal
            for line in lines {
                screen.put(line, row: row, column: 1, style: style)
                row += 1
            }
        }
        if window.flows.isEmpty { screen.put("none yet: paste a command in another terminal (c shows them)", row: top + 1, column: 1, style: .dim) }
        footer("c the \(lab.commands.count) commands to paste   ? keys   q stop the lab")
    }

    /// The trust check's URL, then the commands from the selected one on: title, what it is like and what to expect, the line itself.
    private mutating func labCommands(_ lab: ConsoleState.LabView) {
        rule(1, "commands to paste in another terminal (also in commands.txt)")
        var row = lab.trustCheck.map { paragraph($0, row: 2, lines: 3, style: .warning) + 1 } ?? 2
        for (index, command) in lab.commands.enumerated().dropFirst(lab.commandCursor) where row < height - 2 {
            row = paragraph("\(index + 1). \(command.title)", row: row, lines: height - 1 - row, style: .accent)
            row = paragraph("like \(command.policy); expect \(command.expected)", row: row, lines: height - 1 - row, style: .dim, indent: 4)
            row = paragraph(command.line, row: row, lines: height - 1 - row, indent: 4) + 1
        }
        footer("↑/↓ previous/next command   c or q back to the connections   ? keys")
    }
}
