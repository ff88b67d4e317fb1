import Simulation

/// Every client model against the lesson's attack, and one client's trace as a page.
extension Canvas {
    mutating func comparison(_ state: ConsoleState) {
        header("every client against this lesson's attack", state)
        guard let comparison = state.comparison else {
            return waiting(failure: state.comparisonFailure, running: "Running the attack against every client on 127.0.0.1…")
        }
        let rows = comparison.rows
        let selected = rows.indices.contains(state.comparisonCursor) ? rows[state.comparisonCursor] : nil
        if state.showsComparisonTrace, let selected {
            return page(Self.comparisonTraceRows(selected, width: width), scroll: state.pageScroll, footer: "q back to the clients")
        }
        var row = comparison.heading.dropFirst().reduce(1) { row, line in paragraph(line, row: row, lines: 2, style: .accent) } + 1
        let table = [Comparison.columns] + rows.map(Comparison.cells)
        let widths = Comparison.columns.indices.dropLast().map { column in (table.map { $0[column].count }.max() ?? 0) + 2 }
        func put(_ cells: [String], row: Int, style: Style) {
            var column = 1
            for (index, cell) in cells.enumerated() {
                let room = index < widths.count ? widths[index] : width - column - 1
                screen.put(cell, row: row, column: column, style: style, width: room)
                column += room
            }
        }
        put(Comparison.columns, row: row, style: .dim)
        // The selected client's whole verdict and attacker sentence go under the table, where a narrow cell is cut.
        let detail = selected.map { Canvas.wrap("\($0.client): \($0.report.verdict). " + $0.report.outcome.joined(separator: " "), width: width - 2) } ?? []
        let room = max(1, height - row - 3 - detail.count)
        let first = max(0, min(state.comparisonCursor - room / 2, rows.count - room))
        for (index, result) in rows.enumerated().dropFirst(first).prefix(room) {
            row += 1
            let isSelected = index == state.comparisonCursor
            if isSelected { screen.paint(row: row, column: 0, width: width, style: .selected) }
            let style: Style = isSelected ? .selected : result.report.attackerView.readSecret ? .leaked : result.trusted ? .accepted : .rejected
            put(Comparison.cells(result), row: row, style: style)
        }
        for (offset, line) in detail.enumerated() { screen.put(line, row: row + 2 + offset, column: 1, style: .accent) }
        footer("j/k choose a client   Enter its trace   q back")
    }

    /// One client's run as the walkthrough explains it: its settings, every step, the verdict.
    static func comparisonTraceRows(_ result: Comparison.Row, width: Int) -> [PageRow] {
        let report = result.report
        let deciding = report.evaluation?.decidingStep
        let steps = report.evaluation.map { $0.steps.map { ($0.description, $0 == deciding ? Style.deciding : style(of: $0.outcome)) } }
        return rows("trace of \(result.client.rawValue)", .accent, width: width)
            + report.settingsLines.flatMap { rows($0, .accent, width: width) }
            + (steps ?? [(RunReport.noChainJudged, .dim)]).flatMap { rows($0.0, $0.1, width: width, hanging: 7) }
            + [[]] + rows(report.verdict + ". " + report.outcome.joined(separator: " "), report.trusted ? .accepted : .rejected, width: width)
    }
}
