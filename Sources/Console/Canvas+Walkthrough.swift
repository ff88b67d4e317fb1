import Simulation

/// The walkthrough: the settings on top; the diagram, the app's trace and the lesson's text sharing the
/// middle, the pane with the focus served first; what changed, the deciding step, the verdict and a key
/// hint at the bottom, which always fit. Every sentence wraps; a pane that cannot show all of it scrolls.
extension Canvas {
    typealias Line = (text: String, style: Style)

    /// The walkthrough's rows, worked out once, for drawing and for `update`'s scrolling bounds.
    struct WalkthroughLayout {
        /// The settings and the attack, under the title.
        var top: [Line] = []
        var events: [DiagramEvent] = []
        var withProxy = false
        var spacing = 1
        /// Each trace step's wrapped lines.
        var trace: [[Line]] = []
        var lesson: [StyledLine] = []
        /// What changed, the deciding step and the verdict, above the key hint.
        var bottom: [StyledLine] = []
        /// Rows of each pane; the trace's and the lesson's include their rule.
        var rows: [ConsoleState.Focus: Int] = [:]

        /// The row of the first event, under the lane titles.
        var laneTop: Int { top.count + 2 }
        var lessonVisible: Int { max(0, (rows[.lesson] ?? 0) - 1) }
        var lessonMaxScroll: Int { max(0, lesson.count - lessonVisible) }
    }

    static func walkthroughLayout(_ state: ConsoleState, _ report: RunReport, size: Size) -> WalkthroughLayout {
        let room = size.columns - 2
        var layout = WalkthroughLayout()
        layout.top = (report.settingsLines + ["attack: " + report.scenario.attacker.summary]).flatMap { wrap($0, width: room) }.map { ($0, .accent) }
        layout.events = diagramEvents(state, report)
        layout.spacing = state.classroom && size.rows >= 40 ? 2 : 1
        layout.withProxy = report.events.contains { $0.actor == .proxy }
        layout.trace = traceSteps(state, report).map { step in wrap(step.text, width: room, hanging: 7).map { ($0, step.style) } }
        let lessonText = state.lessonText
        if !lessonText.isEmpty {
            let stale = state.departure == nil ? [] : wrap(line(LessonDeparture.staleLessonText, .warning), width: room)
            layout.lesson = stale + markdownLines(lessonText, width: room)
        }
        layout.bottom = bottomLines(state, report).flatMap { wrap(line($0.text, $0.style), width: room) } + verdictLines(state, report, width: room)

        let lanes = laneColumns(width: size.columns, withProxy: layout.withProxy)
        let needs: [ConsoleState.Focus: Int] = [
            .diagram: layout.events.reduce(0) { $0 + labelLines($1, lanes: lanes, width: size.columns).count + layout.spacing - 1 },
            .trace: 1 + layout.trace.reduce(0) { $0 + $1.count },
            .lesson: layout.lesson.isEmpty ? 0 : 1 + layout.lesson.count,
        ]
        var rows: [ConsoleState.Focus: Int] = [.diagram: 0, .trace: 0, .lesson: 0]
        var left = max(0, size.rows - 1 - layout.bottom.count - layout.laneTop)
        func grow(_ pane: ConsoleState.Focus, to target: Int) {
            let more = min(left, max(0, min(target, needs[pane] ?? 0) - (rows[pane] ?? 0)))
            rows[pane, default: 0] += more
            left -= more
        }
        // When rows are few, the focused pane gets two (a rule and a line); then, if the bottom lines show the
        // deciding step whole (so the trace pane would only repeat it), the diagram the current event whole and a row
        // of the one before it; the other panes one; then the focused trace or lesson all it needs, or the focused
        // diagram five rows; then two rows each, a few events (more when the diagram has the focus), two trace steps,
        // the lesson, the rest of the trace; what is left lengthens the lanes.
        grow(state.focus, to: 2)
        let decidingBelow = report.evaluation?.decidingStep.map { step in bottomLines(state, report).contains { $0.text == step.description } } ?? false
        if decidingBelow, let current = layout.events.first(where: { $0.index == state.step }) {
            let rows = labelLines(current, lanes: lanes, width: size.columns).count + layout.spacing - 1
            grow(.diagram, to: rows + (layout.events.count > 1 ? 1 : 0))
        }
        let order = [state.focus] + ConsoleState.Focus.allCases.filter { $0 != state.focus }
        for pane in order { grow(pane, to: 1) }
        grow(state.focus, to: state.focus == .diagram ? 5 : .max)
        for pane in order { grow(pane, to: 2) }
        grow(.diagram, to: state.focus == .diagram ? max(7, size.rows / 4) : 3)
        grow(.trace, to: 3)
        grow(.lesson, to: .max)
        grow(.trace, to: .max)
        rows[.diagram, default: 0] += left
        layout.rows = rows
        return layout
    }

    mutating func walkthrough(_ state: ConsoleState) {
        guard let scenario = state.scenario else { return }
        header("\(state.name(scenario)): \(scenario.title)", state)
        guard let report = state.report else {
            screen.put("Running the lesson on 127.0.0.1…", row: 2, column: 2, style: .dim)
            return
        }
        if let opened = state.opened, let rows = Self.openedRows(opened, state, width: width) {
            return page(rows, scroll: state.pageScroll, footer: "Enter or q back to the walkthrough")
        }
        let layout = Self.walkthroughLayout(state, report, size: Size(columns: width, rows: height))
        for (offset, line) in layout.top.enumerated() { screen.put(line.text, row: 1 + offset, column: 1, style: line.style) }
        let diagramRows = layout.rows[.diagram] ?? 0
        diagram(layout.events, current: state.step, top: layout.laneTop, rows: diagramRows, spacing: layout.spacing, withProxy: layout.withProxy)
        var row = layout.laneTop + diagramRows
        // Before the class answers, the total would tell: a refusal ends the run sooner than a leak.
        let stepLabel = state.awaitingPrediction ? " step \(state.step + 1) " : " step \(state.step + 1) of \(report.events.count) "
        if layout.rows[.trace] == 0 {
            // No trace rule to carry the step: it goes on the lane titles' row, left of the origin's.
            screen.put(stepLabel, row: layout.laneTop - 1, column: width - Self.laneTitle(.origin).count - stepLabel.count - 2, style: .border)
        }
        if let traceRows = layout.rows[.trace], traceRows > 0 {
            paneRule(row, "the app's trace", focused: state.focus == .trace)
            screen.put(stepLabel, row: row, column: width - stepLabel.count - 2, style: .border)
            trace(
                layout.trace, cursor: state.focus == .trace ? state.traceCursor ?? Self.decidingTraceIndex(report) : nil,
                deciding: Self.decidingTraceIndex(report), top: row + 1, rows: traceRows - 1)
            row += traceRows
        }
        if let lessonRows = layout.rows[.lesson], lessonRows > 0 {
            let first = min(state.lessonScroll, layout.lessonMaxScroll)
            let shown = min(layout.lesson.count, first + layout.lessonVisible)
            let position =
                layout.lessonVisible == 0
                ? " \(layout.lesson.count) lines "
                : layout.lesson.count > layout.lessonVisible ? " lines \(first + 1)–\(shown) of \(layout.lesson.count) " : ""
            // After an edit the pane holds the lesson's story alone, under the engine's sentence saying why and how `r` brings it back.
            paneRule(row, state.departure == nil ? "lesson" : "lesson, as written", focused: state.focus == .lesson)
            screen.put(position, row: row, column: width - position.count - 2, style: .border)
            for (offset, line) in layout.lesson[first..<shown].enumerated() { put(line, row: row + 1 + offset, column: 1) }
        }
        for (index, line) in layout.bottom.enumerated() { put(line, row: height - 1 - layout.bottom.count + index, column: 1) }
        footer(Self.keyHint(state))
    }

    /// A pane's rule; the focused pane's is marked, so the room sees what ↑ and ↓ will move.
    private mutating func paneRule(_ row: Int, _ label: String, focused: Bool) {
        rule(row, focused ? "▶ \(label)" : label)
        if focused { screen.paint(row: row, column: 1, width: label.count + 5, style: .accent) }
    }

    /// The trace steps around the cursor (or, without one, up to the deciding step: the gates that led to it).
    private mutating func trace(_ steps: [[Line]], cursor: Int?, deciding: Int, top: Int, rows: Int) {
        guard let anchor = [cursor ?? deciding, steps.count - 1].min(), anchor >= 0 else { return }
        var (first, last, used) = (anchor, anchor, steps[anchor].count)
        while first > 0, used + steps[first - 1].count <= rows {
            first -= 1
            used += steps[first].count
        }
        while last + 1 < steps.count, used + steps[last + 1].count <= rows {
            last += 1
            used += steps[last].count
        }
        // Rows still free show the start of the next step (Enter opens it whole).
        if used < rows, last + 1 < steps.count { last += 1 }
        var row = top
        for index in first...last {
            for line in steps[index] where row < top + rows {
                if index == cursor { screen.paint(row: row, column: 0, width: width, style: .selected) }
                screen.put(line.text, row: row, column: 1, style: index == cursor ? .selected : line.style)
                row += 1
            }
        }
    }

    /// The trace step that decided, by its place in the trace; 0 when none did.
    static func decidingTraceIndex(_ report: RunReport) -> Int {
        report.evaluation?.decidingStep.flatMap { report.evaluation?.steps.firstIndex(of: $0) } ?? 0
    }

    /// The walkthrough's one-line key hint, for the pane with the focus; `?` lists every key. Each fits a
    /// projector's 80 columns after the footer's margin.
    static func keyHint(_ state: ConsoleState) -> String {
        let moves =
            switch state.focus {
            case .diagram: "↑↓ PgUp PgDn step  Enter event"
            case .trace: "↑↓ PgUp PgDn trace  Enter whole step"
            case .lesson: "↑↓ PgUp PgDn scroll the lesson"
            }
        let answer = state.awaitingPrediction ? "  y/n answer" : ""
        return "Tab focus  \(moves)\(answer)  ? keys  q lessons"
    }

    /// Above the verdict: a refusal note, what changed (from the lesson, or by the last edit), and the
    /// deciding step's whole sentence, which is the reason for the verdict. Only what a class may see
    /// before it answers.
    private static func bottomLines(_ state: ConsoleState, _ report: RunReport) -> [Line] {
        var lines: [Line] = []
        if let note = state.note { lines.append((note, .warning)) }
        if let departure = state.departure {
            lines.append((departure.summary, .accent))
            if state.revealed { lines.append((departure.deciding, .deciding)) }
            return lines
        }
        if let change = state.revealed ? state.change : state.changeBeforeVerdict { lines.append((change, .accent)) }
        if state.revealed, let deciding = report.evaluation?.decidingStep { lines.append((deciding.description, .deciding)) }
        return lines
    }

    /// The trace, one entry a step (the deciding step is also written in full above the verdict).
    static func traceSteps(_ state: ConsoleState, _ report: RunReport) -> [Line] {
        guard let evaluation = report.evaluation else { return [(RunReport.noChainJudged, .dim)] }
        guard state.revealed else { return [("(the trace is hidden until the class answers)", .dim)] }
        let deciding = evaluation.decidingStep
        return evaluation.steps.map { step in (step.description, step == deciding ? .deciding : style(of: step.outcome)) }
    }

    /// The events the diagram may show: before the class answers, the decision is hidden and nothing after it is drawn.
    static func diagramEvents(_ state: ConsoleState, _ report: RunReport) -> [DiagramEvent] {
        let deciding = state.decidingStep
        return report.events.enumerated().compactMap { index, event in
            if !state.revealed, let deciding, index >= deciding {
                guard index == deciding else { return nil }
                return DiagramEvent(
                    index: index, actor: .client, peer: nil, text: "the client judges the chain: hidden until the class answers (y or n)", style: .deciding)
            }
            let style: Style = index == deciding ? .deciding : style(of: event.actor)
            return DiagramEvent(index: index, actor: event.actor, peer: event.peer, text: event.text, style: style)
        }
    }

    /// The verdict and what the attacker read, wrapped; before the class answers, the question instead.
    private static func verdictLines(_ state: ConsoleState, _ report: RunReport, width: Int) -> [StyledLine] {
        if state.awaitingPrediction { return wrap(line("Will the client accept this chain? (y/n)", .warning), width: width) }
        var verdict = line(report.verdict, report.trusted ? .accepted : .rejected) + line("  ", .normal)
        verdict += line(report.attackerView.summary(secret: report.scenario.request.secret), report.attackerView.readSecret ? .leaked : .normal)
        if let result = state.predictionResult { verdict += line("  " + result, .accent) }
        return wrap(verdict, width: width)
    }

    // MARK: - Opened event or trace step

    /// An event or a trace step, whole; what the class may not see yet is not opened.
    static func openedRows(_ opened: ConsoleState.Opened, _ state: ConsoleState, width: Int) -> [PageRow]? {
        guard let report = state.report else { return nil }
        switch opened {
        case .event(let index):
            guard let event = diagramEvents(state, report).first(where: { $0.index == index }) else { return nil }
            let parties = [event.actor] + (event.peer.map { [$0] } ?? [])
            let position = state.awaitingPrediction ? "event \(index + 1)" : "event \(index + 1) of \(report.events.count)"
            let heading = position + ": " + parties.map(laneTitle).joined(separator: " → ")
            return rows(heading, .accent, width: width) + [[]] + rows(event.text, event.style, width: width)
        case .traceStep(let index):
            let steps = traceSteps(state, report)
            guard steps.indices.contains(index) else { return nil }
            return rows("the app's trace, step \(index + 1) of \(steps.count)", .accent, width: width) + [[]]
                + rows(steps[index].text, steps[index].style, width: width, hanging: 7)
        }
    }
}
