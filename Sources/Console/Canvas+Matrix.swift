import Simulation

/// The policy × attack matrix of the lesson's world, the selected cell explained under it.
extension Canvas {
    mutating func matrix(_ state: ConsoleState) {
        header("policy × attack for this lesson's world", state)
        guard let matrix = state.matrix else {
            return waiting(failure: state.matrixFailure, running: "Running every policy against every attack on 127.0.0.1…")
        }
        // Full labels and symbols when they fit; otherwise the short ones, which the legend names.
        let fullLabels = matrix.policies.map { $0.label.split(separator: " ").joined(separator: " ") }
        let wide = (fullLabels.map(\.count).max() ?? 0) + 2 + matrix.columns.count * 9 <= width
        let labels = wide ? fullLabels : matrix.policies.map(\.shortLabel)
        let labelWidth = (labels.map(\.count).max() ?? 0) + 2
        let cell = max(5, (width - labelWidth - 1) / max(1, matrix.columns.count))
        for (index, column) in matrix.columns.enumerated() {
            screen.put(column.abbreviation, row: 1, column: labelWidth + index * cell, style: .accent, width: cell - 1)
        }
        // The legend spells out the short labels and symbols; behind `g`, so the rows get the room.
        let legendText = wide ? Array(matrix.legend.prefix(2)) + matrix.compactLegend.suffix(1) : matrix.compactLegend
        let legend = state.showsMatrixLegend ? legendText.flatMap { Canvas.wrap($0, width: width - 2) } : []
        let selected = matrix.cell(matrix.policies[state.matrixCursor.row], matrix.columns[state.matrixCursor.column])
        let explanation = selected.map { matrix.explanation(of: $0).flatMap { Canvas.wrap($0, width: width - 2) } } ?? []
        let rows = max(3, height - 4 - legend.count - explanation.count)
        let first = max(0, min(state.matrixCursor.row - rows / 2, matrix.policies.count - rows))
        for (offset, policy) in matrix.policies.enumerated().dropFirst(first).prefix(rows) {
            let row = 2 + offset - first
            screen.put(labels[offset], row: row, column: 1, style: offset == state.matrixCursor.row ? .accent : .normal, width: labelWidth - 1)
            for (index, column) in matrix.columns.enumerated() {
                guard let result = matrix.cell(policy, column) else { continue }
                let isSelected = offset == state.matrixCursor.row && index == state.matrixCursor.column
                let style: Style = isSelected ? .selected : result.symbol == "LEAKED" ? .leaked : result.trusted ? .accepted : .rejected
                screen.put(wide ? result.symbol : result.shortSymbol, row: row, column: labelWidth + index * cell, style: style, width: cell - 1)
            }
        }
        var row = 2 + min(rows, matrix.policies.count)
        screen.put("accepted by (of \(matrix.policies.count))", row: row, column: 1, style: .dim)
        for (index, column) in matrix.columns.enumerated() {
            screen.put("\(matrix.acceptedCount(column))", row: row, column: labelWidth + index * cell, style: .dim)
        }
        for line in explanation {
            row += 1
            screen.put(line, row: row, column: 1, style: .accent)
        }
        for line in legend {
            row += 1
            screen.put(line, row: row, column: 1, style: .dim)
        }
        footer("arrows move   Enter load into the walkthrough   g \(state.showsMatrixLegend ? "hide the" : "show the") legend   q back")
    }
}
