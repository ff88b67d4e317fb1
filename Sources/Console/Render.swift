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
        if state.screen == .lab { canvas.labHelp() } else { canvas.help() }
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

    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.components(separatedBy: "\n") {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                if !line.isEmpty, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = ""
                }
                line += (line.isEmpty ? "" : " ") + word
                while line.count > width {
                    lines.append(String(line.prefix(width)))
                    line = String(line.dropFirst(width))
                }
            }
            lines.append(line)
        }
        return lines
    }

    // MARK: - Picker

    mutating func picker(_ state: ConsoleState) {
        header("lessons: choose one with ↑/↓ and Enter")
        let lessons = state.filtered
        let listRows = height - 5
        let first = max(0, min(state.selection - listRows / 2, lessons.count - listRows))
        var row = 1
        var group = first > 0 ? lessons[first - 1].group : ""
        for (index, lesson) in lessons.enumerated().dropFirst(first) where row < 1 + listRows {
            if lesson.group != group {
                group = lesson.group
                screen.put(group, row: row, column: 1, style: .accent)
                row += 1
                if row >= 1 + listRows { break }
            }
            let selected = index == state.selection
            if selected { screen.paint(row: row, column: 0, width: width, style: .selected) }
            screen.put("\(selected ? ">" : " ") \(lesson.id)", row: row, column: 1, style: selected ? .selected : .normal, width: 48)
            screen.put(lesson.title, row: row, column: 50, style: selected ? .selected : .dim)
            row += 1
        }
        if lessons.isEmpty { screen.put("No lesson matches '\(state.filter)'. Esc clears the filter.", row: 2, column: 2, style: .warning) }
        rule(height - 4)
        // A summary states the lesson's outcome, so a class that is to predict it does not see it.
        if lessons.indices.contains(state.selection), !state.classroom { paragraph(lessons[state.selection].summary, row: height - 3, lines: 1) }
        let filter = state.filtering ? "/\(state.filter)_" : state.filter.isEmpty ? "" : "filter: \(state.filter) (Esc clears)"
        screen.put(filter, row: height - 2, column: 1, style: .accent)
        footer("Enter open   / filter   ? help   q quit")
    }

    // MARK: - Walkthrough

    mutating func walkthrough(_ state: ConsoleState) {
        guard let scenario = state.scenario else { return }
        header("\(scenario.id): \(scenario.title)", state)
        guard let report = state.report else {
            screen.put("Running the lesson on 127.0.0.1…", row: 2, column: 2, style: .dim)
            return
        }
        let policyEnd = report.settingsLines.reduce(1) { row, line in paragraph(line, row: row, lines: 2, style: .accent) }
        screen.put("attack: " + scenario.attacker.summary, row: policyEnd, column: 1, style: .accent)
        let laneTop = policyEnd + 2

        // The bottom is laid out first, so the verdict and the reason for it always fit.
        let bottom = bottomLines(state, report)
        let traceLines = traceLines(state, report)
        let lessonLines = Canvas.markdownLines(state.lessonText, width: width - 2)
        let events = diagramEvents(state, report)
        let spacing = state.classroom && height >= 40 ? 2 : 1
        let withProxy = report.events.contains { $0.actor == .proxy }
        let lanes = Self.laneColumns(width: width, withProxy: withProxy)
        let eventRows = events.reduce(0) { $0 + Self.labelLines($1, lanes: lanes, width: width, full: true).count + spacing - 1 }

        // Rows between the lane titles and the bottom: at least five for the diagram and a few trace
        // steps; then the lesson's text; what is left widens the trace, then the diagram.
        var left = height - 1 - bottom.count - laneTop
        let laneRows = min(eventRows, 5)
        let traceRows = 1 + min(traceLines.count, 3)
        left -= laneRows + traceRows
        let lessonNeed = lessonLines.isEmpty ? 0 : 1 + (state.departure == nil ? 0 : 1) + lessonLines.count
        let lessonRows = min(lessonNeed, max(0, left)) >= 2 ? min(lessonNeed, left) : 0
        left -= lessonRows
        let extraTrace = min(max(0, left), traceLines.count + 1 - traceRows)
        left -= extraTrace
        let diagramRows = laneRows + max(0, left)

        diagram(events, current: state.step, top: laneTop, rows: diagramRows, spacing: spacing, withProxy: withProxy)

        var row = laneTop + diagramRows
        rule(row, "the app's trace")
        let stepLabel = " step \(state.step + 1) of \(report.events.count) "
        screen.put(stepLabel, row: row, column: width - stepLabel.count - 2, style: .border)
        // When the trace does not fit, the window ends at the deciding step: the gates that led to it.
        let shown = traceRows + extraTrace - 1
        let deciding = report.evaluation?.decidingStep.flatMap { report.evaluation?.steps.firstIndex(of: $0) } ?? 0
        let first = state.revealed ? max(0, min(deciding - shown + 1, traceLines.count - shown)) : 0
        for line in traceLines.dropFirst(first).prefix(shown) {
            row += 1
            screen.put(line.text, row: row, column: 1, style: line.style, width: width - 2)
        }
        row += 1
        if lessonRows > 0 {
            rule(row, state.departure == nil ? "lesson" : "lesson, as written")
            row += 1
            if state.departure != nil {
                screen.put(LessonDeparture.staleLessonText, row: row, column: 1, style: .warning, width: width - 2)
                row += 1
            }
            for line in lessonLines.prefix(lessonRows - (state.departure == nil ? 1 : 2)) {
                put(line, row: row, column: 1)
                row += 1
            }
        }
        for (index, line) in bottom.enumerated() {
            screen.put(line.text, row: height - 1 - bottom.count + index, column: 1, style: line.style, width: width - 2)
        }
        verdictLine(state, report, row: height - 1)
    }

    /// Above the verdict: a refusal note, what changed (from the lesson, or by the last edit), and the
    /// deciding step's whole sentence, which is the reason for the verdict. Only what a class may see
    /// before it answers.
    private func bottomLines(_ state: ConsoleState, _ report: RunReport) -> [(text: String, style: Style)] {
        let room = width - 2
        var lines: [(text: String, style: Style)] = []
        func add(_ text: String, _ style: Style, at most: Int = .max) { lines += Canvas.wrap(text, width: room).prefix(most).map { ($0, style) } }
        if let note = state.note { add(note, .warning, at: 2) }
        if let departure = state.departure {
            add(departure.summary, .accent, at: 2)
            if state.revealed { add(departure.deciding, .deciding) }
            return lines
        }
        if let change = state.revealed ? state.change : state.changeBeforeVerdict { add(change, .accent, at: 2) }
        if state.revealed, let deciding = report.evaluation?.decidingStep { add(deciding.description, .deciding) }
        return lines
    }

    /// The trace, one line a step (the deciding step is also written in full above the verdict).
    private func traceLines(_ state: ConsoleState, _ report: RunReport) -> [(text: String, style: Style)] {
        guard let evaluation = report.evaluation else { return [(RunReport.noChainJudged, .dim)] }
        guard state.revealed else { return [("(the trace is hidden until the class answers)", .dim)] }
        let deciding = evaluation.decidingStep
        return evaluation.steps.map { step in (step.description, step == deciding ? .deciding : Self.style(of: step.outcome)) }
    }

    /// The events the diagram may show: before the class answers, the decision is hidden and nothing after it is drawn.
    private func diagramEvents(_ state: ConsoleState, _ report: RunReport) -> [DiagramEvent] {
        let deciding = state.decidingStep
        return report.events.enumerated().compactMap { index, event in
            if !state.revealed, let deciding, index >= deciding {
                guard index == deciding else { return nil }
                return DiagramEvent(
                    index: index, actor: .client, peer: nil, text: "the client judges the chain: hidden until the class answers (y or n)", style: .deciding)
            }
            let style: Style = index == deciding ? .deciding : self.style(of: event.actor)
            return DiagramEvent(index: index, actor: event.actor, peer: event.peer, text: event.text, style: style)
        }
    }

    private mutating func verdictLine(_ state: ConsoleState, _ report: RunReport, row: Int) {
        if state.awaitingPrediction {
            screen.put(" Will the client accept this chain? (y/n)", row: row, column: 0, style: .warning)
            return
        }
        let accepted = report.trusted
        var column = 0
        func put(_ text: String, _ style: Style) {
            column = screen.put(text, row: row, column: column, style: style)
        }
        put(" \(report.verdict) ", accepted ? .accepted : .rejected)
        put(" ", .normal)
        put(report.attackerView.summary(secret: report.scenario.request.secret), report.attackerView.readSecret ? .leaked : .normal)
        if let result = state.predictionResult { put("  \(result)", .accent) }
    }

    static func style(of outcome: TraceStep.Outcome) -> Style {
        switch outcome {
        case .passed: .passed
        case .failed: .failed
        case .note: .note
        case .skipped: .skipped
        }
    }

    func style(of actor: NetworkEvent.Actor?) -> Style {
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
        header("what the attacker read: \(report.scenario.id)", state)
        let view = report.attackerView
        let secret = report.scenario.request.secret
        var row = paragraph(view.summary(secret: secret), row: 2, lines: 2, style: view.readSecret ? .leaked : .accent)
        row += 1
        if view.sawPlaintext {
            screen.put("Decrypted request from the client:", row: row, column: 1, style: .accent)
            row += 1
            for line in view.requestText.components(separatedBy: "\r\n").prefix(height - row - 6) {
                screen.put(line, row: row, column: 2)
                if !secret.isEmpty, let range = line.range(of: secret) {
                    screen.paint(row: row, column: 2 + line.distance(from: line.startIndex, to: range.lowerBound), width: secret.count, style: .leaked)
                }
                row += 1
            }
            screen.put("Decrypted response from the bank:", row: row + 1, column: 1, style: .accent)
            paragraph(view.responseText.components(separatedBy: "\r\n\r\n").last ?? "", row: row + 2, lines: 3, indent: 2)
        } else if view.connected {
            paragraph(view.ciphertextDetail, row: row, lines: 3)
        }
        footer("x or q back")
    }

    // MARK: - Certificate inspector

    mutating func inspector(_ state: ConsoleState) {
        guard let report = state.report else { return }
        header("certificates: shown to the client vs the real server's", state)
        let half = width / 2
        screen.put("shown to the client", row: 1, column: 1, style: .accent)
        screen.put("sent by the real server", row: 1, column: half + 1, style: .accent)
        var row = 2
        for fields in report.certificateComparison where row < height - 2 {
            for field in fields where row < height - 2 {
                let mark = field.differs ? "≠ " : "  "
                let name = field.name.padding(toLength: 9, withPad: " ", startingAt: 0)
                if let shown = field.shown {
                    screen.put(mark + name + shown, row: row, column: 0, style: field.differs ? .warning : .normal, width: half - 1)
                }
                if let real = field.real {
                    screen.put(mark + name + real, row: row, column: half, style: field.differs ? .warning : .normal, width: half)
                }
                row += 1
            }
            row += 1
        }
        footer("≠ marks a field that differs   i or q back")
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
        let legend = (wide ? Array(matrix.legend.prefix(2)) + matrix.compactLegend.suffix(1) : matrix.compactLegend).flatMap {
            Canvas.wrap($0, width: width - 2)
        }
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
        footer("arrows move   Enter load into the walkthrough   q back")
    }

    // MARK: - Comparison

    mutating func comparison(_ state: ConsoleState) {
        header("every client against this lesson's attack", state)
        guard let comparison = state.comparison else {
            return waiting(failure: state.comparisonFailure, running: "Running the attack against every client on 127.0.0.1…")
        }
        let rows = comparison.rows
        let selected = rows.indices.contains(state.comparisonCursor) ? rows[state.comparisonCursor] : nil
        if state.showsComparisonTrace, let selected { return comparisonTrace(selected) }
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
        let room = max(1, height - row - 3 - min(2, detail.count))
        let first = max(0, min(state.comparisonCursor - room / 2, rows.count - room))
        for (index, result) in rows.enumerated().dropFirst(first).prefix(room) {
            row += 1
            let isSelected = index == state.comparisonCursor
            if isSelected { screen.paint(row: row, column: 0, width: width, style: .selected) }
            let style: Style = isSelected ? .selected : result.report.attackerView.readSecret ? .leaked : result.trusted ? .accepted : .rejected
            put(Comparison.cells(result), row: row, style: style)
        }
        for (offset, line) in detail.prefix(2).enumerated() { screen.put(line, row: row + 2 + offset, column: 1, style: .accent) }
        footer("j/k choose a client   Enter its trace   q back")
    }

    /// One client's run as the walkthrough explains it: its settings, every step, the verdict.
    private mutating func comparisonTrace(_ result: Comparison.Row) {
        let report = result.report
        screen.put("trace of \(result.client.rawValue)", row: 1, column: 1, style: .accent)
        var row = report.settingsLines.reduce(2) { row, line in paragraph(line, row: row, lines: 2, style: .accent) }
        let deciding = report.evaluation?.decidingStep
        let steps = report.evaluation.map { $0.steps.map { ($0.description, $0 == deciding ? Style.deciding : Self.style(of: $0.outcome)) } }
        for (text, style) in steps ?? [(RunReport.noChainJudged, .dim)] where row < height - 3 {
            row = paragraph(text, row: row, lines: min(2, height - 3 - row), style: style)
        }
        paragraph(report.verdict + ". " + report.outcome.joined(separator: " "), row: height - 3, lines: 2, style: report.trusted ? .accepted : .rejected)
        footer("q back to the clients")
    }

    // MARK: - Pins

    mutating func pins(_ state: ConsoleState) {
        guard let scenario = state.scenario else { return }
        header("pinned certificates: \(scenario.id)", state)
        screen.put("pinning mode \(scenario.client.policy.pinningMode): Space pins or unpins, and the lesson runs again", row: 1, column: 1, style: .accent)
        for (index, id) in scenario.certificateIDs.enumerated() where 3 + index < height - 2 {
            let pinned = scenario.client.policy.pinnedCertificates.contains(id)
            let selected = index == state.pinCursor
            if selected { screen.paint(row: 3 + index, column: 0, width: width, style: .selected) }
            screen.put("[\(pinned ? "x" : " ")] \(id)", row: 3 + index, column: 2, style: selected ? .selected : pinned ? .accepted : .normal)
        }
        if let change = state.revealed ? state.change : state.changeBeforeVerdict { screen.put(change, row: height - 2, column: 1, style: .accent) }
        footer("↑/↓ move   Space pin/unpin   q back")
    }

    // MARK: - Help

    mutating func help() {
        header("keys")
        let keys = [
            ("↑ ↓ Enter", "choose and open a lesson (picker); / filters, Esc clears"),
            ("→ Space", "next step of the walkthrough; ← previous; Home End first and last"),
            ("j", "jump to the client's decision (hidden until a class answers)"),
            ("a", "toggle allowInvalidCertificates (the lesson runs again for real)"),
            ("d", "toggle validatesDomainName"),
            ("p", "cycle the pinning mode: none, publicKey, certificate"),
            ("P", "choose the pinned certificates"),
            ("A", "cycle the attack"),
            ("t", "the attacker's CA: installed, then full trust off, then removed"),
            ("c", "clock: the lesson's time, or a day after the server's leaf expires"),
            ("D", "domain: the host, or nil (the policy is not told the host)"),
            ("v", "the server's TLS versions: any, 1.2 only, 1.3 only"),
            ("L", "cycle the AFNetworking release: 4, 2.6, 2.5.3 … 2.1, 2.0"),
            ("H", "the challenge handler: afnetworking, acceptAll, systemDefault"),
            ("S E", "ATS: NSAllowsArbitraryLoads (S); the host's http exception (E)"),
            ("r", "reset everything to the lesson as written"),
            ("x i", "what the attacker read (after the answer); certificates: shown vs real"),
            ("m", "policy × attack matrix; Enter loads a cell (after the answer)"),
            ("C", "every client model against this attack; Enter shows one's trace"),
            ("y n", "classroom mode: predict whether the client accepts"),
            ("q Esc", "back, or quit from the lesson list"),
        ]
        for (index, entry) in keys.enumerated() where 2 + index < height - 1 {
            screen.put(entry.0, row: 2 + index, column: 2, style: .accent)
            screen.put(entry.1, row: 2 + index, column: 16)
        }
        footer("? opens this help; ? or q closes it")
    }
}
