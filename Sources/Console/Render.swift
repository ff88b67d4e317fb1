import Simulation

/// Draws the state into a screen buffer. Pure; every sentence comes from the engine (events, trace steps,
/// lesson text, verdicts), so the screen and the headless report always say the same thing.
public func render(_ state: ConsoleState, size: Size) -> ScreenBuffer {
    var screen = ScreenBuffer(width: size.columns, height: size.rows)
    guard size.columns >= 80, size.rows >= 24 else {
        screen.put("Terminal too small: \(size.columns)×\(size.rows).", row: 0, column: 0, style: .warning)
        screen.put("mitmsim needs at least 80×24. Enlarge the window, or press q.", row: 1, column: 0)
        return screen
    }
    var canvas = Canvas(screen: screen)
    if state.showHelp {
        canvas.help(state)
    } else {
        switch state.screen {
        case .picker: canvas.picker(state)
        case .walkthrough: canvas.walkthrough(state)
        case .attacker: canvas.attackerView(state)
        case .inspector: canvas.inspector(state)
        case .matrix: canvas.matrix(state)
        case .pins: canvas.pins(state)
        case .lab: canvas.lab(state)
        case .comparison: canvas.comparison(state)
        }
    }
    return canvas.screen
}

/// The screen being drawn, with the layout helpers every view shares.
struct Canvas {
    var screen: ScreenBuffer
    var width: Int { screen.width }
    var height: Int { screen.height }

    mutating func header(_ title: String, _ state: ConsoleState? = nil) {
        screen.paint(row: 0, column: 0, width: width, style: .title)
        let score = state.map { $0.classroom ? "classroom  score \($0.score.right)/\($0.score.asked) " : "" } ?? ""
        // The title yields to the score: cut, with an ellipsis, a column short of it.
        let room = width - score.count - (score.isEmpty ? 0 : 1)
        let full = " mitmsim  " + title
        screen.put(full.count > room ? String(full.prefix(room - 1)) + "…" : full, row: 0, column: 0, style: .title, width: room)
        screen.put(score, row: 0, column: width - score.count, style: .title)
    }

    mutating func footer(_ text: String) {
        screen.put(" " + text, row: height - 1, column: 0, style: .dim)
    }

    mutating func rule(_ row: Int, _ label: String = "") {
        screen.put(String(repeating: "─", count: width), row: row, column: 0, style: .border)
        if !label.isEmpty { screen.put("─ \(label) ", row: row, column: 1, style: .border) }
    }

    /// Word-wraps `text` into at most `lines` rows from `row`; returns the next free row.
    @discardableResult
    mutating func paragraph(_ text: String, row: Int, lines: Int, style: Style = .normal, indent: Int = 1) -> Int {
        var next = row
        for line in Canvas.wrap(text, width: width - indent - 1).prefix(lines) {
            screen.put(line, row: next, column: indent, style: style)
            next += 1
        }
        return next
    }

    // MARK: - Picker

    mutating func picker(_ state: ConsoleState) {
        header("lessons: choose one with ↑/↓ and Enter")
        let lessons = state.filtered
        let listRows = height - 6
        // The list as drawn, each group's name above its lessons (nil), so the window counts the names too
        // and the selected lesson is always on screen.
        var entries: [(index: Int?, group: String)] = []
        for (index, lesson) in lessons.enumerated() {
            if entries.last?.group != lesson.group { entries.append((nil, lesson.group)) }
            entries.append((index, lesson.group))
        }
        let selectedRow = entries.firstIndex { $0.index == state.selection } ?? 0
        let first = max(0, min(selectedRow - listRows / 2, entries.count - listRows))
        // In classroom mode the number alone: an id can state the outcome.
        let titleColumn = state.classroom ? 14 : 50
        for (row, entry) in zip(1..., entries.dropFirst(first).prefix(listRows)) {
            guard let index = entry.index else {
                screen.put(entry.group, row: row, column: 1, style: .accent)
                continue
            }
            let selected = index == state.selection
            if selected { screen.paint(row: row, column: 0, width: width, style: .selected) }
            screen.put(
                "\(selected ? ">" : " ") \(state.name(lessons[index]))", row: row, column: 1, style: selected ? .selected : .normal, width: titleColumn - 2)
            screen.put(lessons[index].title, row: row, column: titleColumn, style: selected ? .selected : .dim)
        }
        if lessons.isEmpty { screen.put("No lesson matches '\(state.filter)'. Esc clears the filter.", row: 2, column: 2, style: .warning) }
        rule(height - 5)
        // A summary states the lesson's outcome, so a class that is to predict it does not see it.
        if lessons.indices.contains(state.selection), !state.classroom { paragraph(lessons[state.selection].summary, row: height - 4, lines: 2) }
        let filter = state.filtering ? "/\(state.filter)_" : state.filter.isEmpty ? "" : "filter: \(state.filter) (Esc clears)"
        screen.put(filter, row: height - 2, column: 1, style: .accent)
        footer("Enter open   PgUp PgDn page   / filter   ? help   q quit")
    }

    static func style(of outcome: TraceStep.Outcome) -> Style {
        switch outcome {
        case .passed: .passed
        case .failed: .failed
        case .note: .note
        case .skipped: .skipped
        }
    }

    static func style(of actor: NetworkEvent.Actor?) -> Style {
        switch actor {
        case .client?: .client
        case .proxy?: .proxy
        case .origin?: .origin
        case nil: .normal
        }
    }

    // MARK: - Attacker view

    mutating func attackerView(_ state: ConsoleState) {
        guard let report = state.report else { return }
        header("what the attacker read: \(state.name(report.scenario))", state)
        page(Self.attackerRows(report, width: width), scroll: state.pageScroll, footer: "x or q back")
    }

    // MARK: - Certificate inspector

    mutating func inspector(_ state: ConsoleState) {
        guard let report = state.report else { return }
        header("certificates: shown to the client vs the real server's", state)
        page(Self.inspectorRows(report, width: width), scroll: state.pageScroll, footer: "≠ marks a field that differs   i or q back")
    }

    /// A screen whose runs are still going (`running`) or could not be made (`failure`).
    private mutating func waiting(failure: String?, running: String) {
        guard let failure else {
            screen.put(running, row: 2, column: 2, style: .dim)
            return
        }
        paragraph(failure, row: 2, lines: height - 4, style: .warning, indent: 2)
        footer("q back")
    }

    // MARK: - Matrix

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

    // MARK: - Comparison

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

    // MARK: - Pins

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

    // MARK: - Help

    /// The keys of the screen under the help: the live lab's, or the console's.
    mutating func help(_ state: ConsoleState) {
        header(state.screen == .lab ? "keys of the classroom lab" : "keys")
        page(Self.pageContent(state, width: width) ?? [], scroll: state.helpScroll, footer: "? or q closes this help")
    }
}
