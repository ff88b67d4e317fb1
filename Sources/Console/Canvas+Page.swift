import Simulation

/// Screens of wrapped text that scroll with ↑/↓/PgUp/PgDn: the help, an event or trace step opened whole,
/// what the attacker read, the certificate inspector and one client's trace in the comparison, each built in
/// its screen's file. `update` bounds the scroll with the same lines `render` draws.
extension Canvas {
    /// A row of a page: pieces of text, each from its column.
    typealias PageRow = [(column: Int, line: StyledLine)]

    /// Rows a page shows at `size`: all but the title and the footer.
    static func pageRows(_ size: Size) -> Int { max(1, size.rows - 2) }

    /// The rows of the page on screen, at `width` columns; nil when the screen is not a page.
    static func pageContent(_ state: ConsoleState, width: Int) -> [PageRow]? {
        if state.showHelp { return helpRows(state.screen == .lab ? labKeys : keys, width: width) }
        switch state.screen {
        case .walkthrough: return state.opened.flatMap { openedRows($0, state, width: width) }
        case .inspector: return state.report.map { inspectorRows($0, width: width) }
        case .attacker: return state.report.map { attackerRows($0, width: width) }
        case .comparison:
            guard state.showsComparisonTrace, let rows = state.comparison?.rows, rows.indices.contains(state.comparisonCursor) else { return nil }
            return comparisonTraceRows(rows[state.comparisonCursor], width: width)
        default: return nil
        }
    }

    /// Draws `rows` from `scroll` between the title and the footer, with the lines above and below counted.
    mutating func page(_ rows: [PageRow], scroll: Int, footer text: String) {
        let visible = Self.pageRows(Size(columns: width, rows: height))
        let first = max(0, min(scroll, rows.count - visible))
        for (offset, pieces) in rows.dropFirst(first).prefix(visible).enumerated() {
            for piece in pieces { put(piece.line, row: 1 + offset, column: piece.column) }
        }
        let position = rows.count > visible ? "↑↓ \(first + 1)–\(min(rows.count, first + visible)) of \(rows.count)   " : ""
        footer(position + text)
    }

    /// A page about the lesson's run (what the attacker read, the certificates), its title worded from the report;
    /// nothing before the first run.
    mutating func reportPage(_ state: ConsoleState, title: (RunReport) -> String, footer text: String) {
        guard let report = state.report else { return }
        header(title(report), state)
        page(Self.pageContent(state, width: width) ?? [], scroll: state.pageScroll, footer: text)
    }

    /// `text` wrapped into page rows from `column`.
    static func rows(_ text: String, _ style: Style, column: Int = 1, width: Int, hanging: Int = 0) -> [PageRow] {
        wrap(text, width: width - column - 1, hanging: hanging).map { [(column, line($0, style))] }
    }

    static func rows(_ text: StyledLine, column: Int = 1, width: Int, hanging: Int = 0) -> [PageRow] {
        wrap(text, width: width - column - 1, hanging: hanging).map { [(column, $0)] }
    }
}
