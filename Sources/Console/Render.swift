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
        canvas.help()
    } else {
        switch state.screen {
        case .picker: canvas.picker(state)
        case .walkthrough: canvas.walkthrough(state)
        case .attacker: canvas.attackerView(state)
        case .inspector: canvas.inspector(state)
        case .matrix: canvas.matrix(state)
        case .pins: canvas.pins(state)
        case .lab: canvas.lab(state)
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
        screen.put(" mitmsim  " + title, row: 0, column: 0, style: .title)
        if let state, state.classroom {
            let score = "classroom  score \(state.score.right)/\(state.score.asked) "
            screen.put(score, row: 0, column: width - score.count, style: .title)
        }
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

    /// Markdown paragraphs as lines to wrap: single line breaks are soft, blank lines end a paragraph,
    /// and bold markers are dropped (a terminal cannot show them as such).
    static func reflow(_ markdown: String) -> String {
        markdown.replacingOccurrences(of: "**", with: "").trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: "\n\n")
            .map { $0.components(separatedBy: "\n").joined(separator: " ") }.joined(separator: "\n")
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
        if lessons.indices.contains(state.selection) { paragraph(lessons[state.selection].summary, row: height - 3, lines: 1) }
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
        let policyEnd = paragraph("AFSecurityPolicy: " + report.policyDescription, row: 1, lines: 2, style: .accent)
        screen.put("attack: " + scenario.attacker.summary, row: policyEnd, column: 1, style: .accent)

        let wide = width >= 120
        let laneWidth = wide ? width - 40 : width
        let traceRows = wide ? 0 : min(6, report.evaluation?.steps.count ?? 1)
        let changeLines = state.change.map { Array(Canvas.wrap($0, width: width - 2).prefix(2)) } ?? []
        let spacing = state.classroom ? 2 : 1
        let laneTop = policyEnd + 2
        // Lanes take the rows their events need; what is left goes to the lesson text below.
        let reserved = (wide ? 0 : traceRows + 1) + 1 + 2 + 3 + changeLines.count + 1
        let laneRows = max(3, min(report.events.count * spacing, height - laneTop - reserved))
        lanes(state, report, top: laneTop, rows: laneRows, width: laneWidth)
        if wide {
            trace(state, report, top: laneTop - 1, column: laneWidth + 1, rows: laneRows + 1, width: width - laneWidth - 1)
        } else {
            rule(laneTop + laneRows, "AFSecurityPolicy trace")
            trace(state, report, top: laneTop + laneRows + 1, column: 0, rows: traceRows, width: width)
        }
        let bottom = max(laneTop + laneRows, wide ? 0 : laneTop + laneRows + 1 + traceRows)
        rule(bottom, "step \(state.step + 1) of \(report.events.count)")
        let current = report.events[safe: state.step]
        var row = paragraph(current?.description ?? "", row: bottom + 1, lines: 2, style: style(of: current?.actor))
        let verdictRow = height - 1
        row = paragraph(Canvas.reflow(scenario.lesson.text), row: row, lines: verdictRow - changeLines.count - row, style: .dim)
        for (index, line) in changeLines.enumerated() {
            screen.put(line, row: verdictRow - changeLines.count + index, column: 1, style: .accent)
        }
        verdictLine(state, report, row: verdictRow)
    }

    private mutating func lanes(_ state: ConsoleState, _ report: RunReport, top: Int, rows: Int, width: Int) {
        let column = width / 3
        for (index, title) in ["client", "proxy / attacker", "origin"].enumerated() {
            screen.put(title, row: top - 1, column: index * column + 1, style: [Style.client, .proxy, .origin][index])
        }
        let spacing = state.classroom ? 2 : 1
        let visible = max(1, rows / spacing)
        let first = max(0, min(state.step - visible / 2, report.events.count - visible))
        for (offset, event) in report.events.enumerated().dropFirst(first).prefix(visible) {
            let row = top + (offset - first) * spacing
            let lane = Self.lane(of: event.actor)
            let arrow = event.peer.map { Self.lane(of: $0) > lane ? "→ " : "← " } ?? "• "
            let hidden = state.awaitingPrediction && offset > (state.decidingStep ?? .max)
            let isCurrent = offset == state.step
            if isCurrent { screen.paint(row: row, column: 0, width: width, style: .selected) }
            let style: Style = isCurrent ? .selected : offset == state.decidingStep ? .deciding : self.style(of: event.actor)
            screen.put(hidden ? "…" : arrow + event.text, row: row, column: lane * column + 1, style: style, width: column - 1)
        }
    }

    /// Client, proxy and origin, left to right.
    static func lane(of actor: NetworkEvent.Actor) -> Int {
        switch actor {
        case .client: 0
        case .proxy: 1
        case .origin: 2
        }
    }

    private mutating func trace(_ state: ConsoleState, _ report: RunReport, top: Int, column: Int, rows: Int, width: Int) {
        guard let evaluation = report.evaluation else {
            screen.put(RunReport.noChainJudged, row: top, column: column + 1, style: .dim)
            return
        }
        if state.awaitingPrediction {
            screen.put("(hidden until you predict)", row: top, column: column + 1, style: .dim)
            return
        }
        let deciding = evaluation.decidingStep
        var row = top
        for step in evaluation.steps where row < top + rows {
            let style = step == deciding ? .deciding : Self.style(of: step.outcome)
            if column > 0 {
                // Beside the lanes there is room to wrap each step in full.
                row = paragraph(step.description, row: row, lines: top + rows - row, style: style, indent: column + 1)
            } else {
                screen.put(step.description, row: row, column: column + 1, style: style, width: width - 2)
                row += 1
            }
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
            screen.put(text, row: row, column: column, style: style)
            column += text.count
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
        } else if view.isOnPath {
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

    // MARK: - Matrix

    mutating func matrix(_ state: ConsoleState) {
        header("policy × attack for this lesson's world", state)
        guard let matrix = state.matrix else {
            if let failure = state.matrixFailure {
                paragraph(failure, row: 2, lines: height - 4, style: .warning, indent: 2)
                footer("q back")
            } else {
                screen.put("Running every policy against every attack on 127.0.0.1…", row: 2, column: 2, style: .dim)
            }
            return
        }
        let labelWidth = 26
        let cell = max(5, (width - labelWidth - 1) / matrix.columns.count)
        for (index, column) in matrix.columns.enumerated() {
            screen.put(String(column.rawValue.prefix(cell - 1)), row: 1, column: labelWidth + index * cell, style: .accent)
        }
        let rows = height - 5
        let first = max(0, min(state.matrixCursor.row - rows / 2, matrix.policies.count - rows))
        for (offset, policy) in matrix.policies.enumerated().dropFirst(first).prefix(rows) {
            let row = 2 + offset - first
            screen.put(
                policy.label.split(separator: " ").filter { !$0.isEmpty }.joined(separator: " "), row: row, column: 1,
                style: offset == state.matrixCursor.row ? .accent : .normal, width: labelWidth - 1)
            for (index, column) in matrix.columns.enumerated() {
                guard let result = matrix.cell(policy, column) else { continue }
                let selected = offset == state.matrixCursor.row && index == state.matrixCursor.column
                let style: Style = selected ? .selected : result.symbol == "LEAKED" ? .leaked : result.trusted ? .accepted : .rejected
                screen.put(String(result.symbol.prefix(cell - 1)), row: row, column: labelWidth + index * cell, style: style)
            }
        }
        let counts = matrix.columns.map { "\(matrix.acceptedCount($0))/\(matrix.policies.count)" }
        screen.put("accepted by", row: height - 3, column: 1, style: .dim)
        for (index, count) in counts.enumerated() { screen.put(count, row: height - 3, column: labelWidth + index * cell, style: .dim) }
        footer("A=allowInvalidCertificates V=validatesDomainName   arrows move   Enter load into the walkthrough   q back")
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
        if let change = state.change { screen.put(change, row: height - 2, column: 1, style: .accent) }
        footer("↑/↓ move   Space pin/unpin   q back")
    }

    // MARK: - Live lab

    mutating func lab(_ state: ConsoleState) {
        guard let lab = state.lab else { return }
        header("classroom lab: " + lab.title)
        var row = 1
        for (index, command) in lab.commands.enumerated() where row < height / 2 {
            screen.put("\(index + 1). \(command.title)", row: row, column: 1, style: .accent)
            screen.put("like \(command.policy); expect \(command.expected)", row: row + 1, column: 4, style: .dim)
            row += 2
        }
        rule(row, "intercepted connections, newest last")
        let room = height - row - 2
        for (offset, flow) in lab.flows.suffix(room).enumerated() {
            let style: Style = flow.stolenSecret != nil ? .leaked : flow.outcome == .refused ? .rejected : .normal
            screen.put(flow.description, row: row + 1 + offset, column: 1, style: style)
        }
        if lab.flows.isEmpty { screen.put("none yet: paste a command in another terminal", row: row + 1, column: 1, style: .dim) }
        footer("the full commands are printed in the terminal that started the lab and in commands.txt   q stop the lab")
    }

    // MARK: - Help

    mutating func help() {
        header("keys")
        let keys = [
            ("↑ ↓ Enter", "choose and open a lesson (picker); / filters, Esc clears"),
            ("→ Space", "next step of the walkthrough; ← previous; Home End first and last"),
            ("j", "jump to the step where the client decides"),
            ("a", "toggle allowInvalidCertificates (the lesson runs again for real)"),
            ("d", "toggle validatesDomainName"),
            ("p", "cycle the pinning mode: none, publicKey, certificate"),
            ("P", "choose the pinned certificates"),
            ("A", "cycle the attack"),
            ("x", "what the attacker read"),
            ("i", "certificates: shown to the client vs the real ones"),
            ("m", "the policy × attack matrix; Enter loads a cell"),
            ("y n", "classroom mode: predict whether the client accepts"),
            ("?", "this help"),
            ("q Esc", "back, or quit from the lesson list"),
        ]
        for (index, entry) in keys.enumerated() where 2 + index < height - 1 {
            screen.put(entry.0, row: 2 + index, column: 2, style: .accent)
            screen.put(entry.1, row: 2 + index, column: 16)
        }
        footer("? or q closes this help")
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
