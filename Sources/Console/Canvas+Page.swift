import Simulation

/// Screens of wrapped text that scroll with ↑/↓/PgUp/PgDn: the help, an event or trace step opened whole,
/// what the attacker read, the certificate inspector and one client's trace in the comparison. `update` bounds the scroll with
/// the same lines `render` draws.
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

    /// `text` wrapped into page rows from `column`.
    private static func rows(_ text: String, _ style: Style, column: Int = 1, width: Int, hanging: Int = 0) -> [PageRow] {
        wrap(text, width: width - column - 1, hanging: hanging).map { [(column, line($0, style))] }
    }

    private static func rows(_ text: StyledLine, column: Int = 1, width: Int, hanging: Int = 0) -> [PageRow] {
        wrap(text, width: width - column - 1, hanging: hanging).map { [(column, $0)] }
    }

    // MARK: - What the attacker read

    /// What the attacker read: the summary, then the decrypted request (the secret marked) and response, or
    /// why the bytes stayed ciphertext.
    static func attackerRows(_ report: RunReport, width: Int) -> [PageRow] {
        let view = report.attackerView
        let secret = report.scenario.request.secret
        var result = rows(view.summary(secret: secret), view.readSecret ? .leaked : .accent, width: width) + [[]]
        if view.sawPlaintext {
            result += rows("Decrypted request from the client:", .accent, width: width)
            for requestLine in view.requestText.components(separatedBy: "\r\n") {
                var styled = line(requestLine, .normal)
                if !secret.isEmpty, let range = requestLine.range(of: secret) {
                    let start = requestLine.distance(from: requestLine.startIndex, to: range.lowerBound)
                    for index in start..<(start + secret.count) { styled[index].style = .leaked }
                }
                result += rows(styled, column: 2, width: width)
            }
            result += [[]] + rows("Decrypted response from the bank:", .accent, width: width)
            result += rows(view.responseText.components(separatedBy: "\r\n\r\n").last ?? "", .normal, column: 2, width: width)
        } else if view.connected {
            result += rows(view.ciphertextDetail, .normal, width: width)
        }
        return result
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

    // MARK: - Certificate inspector

    /// Each certificate's fields, the one shown to the client beside the real server's, each value wrapped in its half.
    static func inspectorRows(_ report: RunReport, width: Int) -> [PageRow] {
        let half = width / 2
        var result: [PageRow] = [[(1, line("shown to the client", .accent)), (half + 1, line("sent by the real server", .accent))]]
        for fields in report.certificateComparison {
            for field in fields {
                let mark = field.differs ? "≠ " : "  "
                let name = field.name.padding(toLength: 9, withPad: " ", startingAt: 0)
                let style: Style = field.differs ? .warning : .normal
                let shown = field.shown.map { wrap(name + $0, width: half - 3, hanging: 9) } ?? []
                let real = field.real.map { wrap(name + $0, width: half - 3, hanging: 9) } ?? []
                for index in 0..<max(shown.count, real.count) {
                    var row: PageRow = []
                    if index < shown.count { row += [(0, line(index == 0 ? mark : "", style)), (2, line(shown[index], style))] }
                    if index < real.count { row += [(half, line(index == 0 ? mark : "", style)), (half + 2, line(real[index], style))] }
                    result.append(row)
                }
            }
            result.append([])
        }
        return result
    }

    // MARK: - One client's trace in the comparison

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

    // MARK: - Help

    static let keys = [
        ("↑ ↓ Enter", "choose and open a lesson (lesson list); PgUp PgDn page it; / filters (Enter opens the first match), Esc clears"),
        ("Tab", "walkthrough: move the focus between the diagram, the app's trace and the lesson's text"),
        ("↑ ↓ PgUp PgDn", "move in the pane with the focus: the diagram's steps, the trace's steps, or the lesson's lines; Home End first and last"),
        ("→ ← Space", "next and previous step of the diagram, whatever has the focus"),
        ("Enter", "open the selected event or trace step whole (q closes it)"),
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
        ("r", "reset everything to the lesson as written (after an edit only the lesson's story is shown)"),
        ("x i", "what the attacker read (after the answer); certificates: shown vs real (↑↓ scroll)"),
        ("m", "policy × attack matrix; Enter loads a cell; g shows the legend (after the answer)"),
        ("C", "every client model against this attack; Enter shows one's trace (↑↓ scroll)"),
        ("y n", "classroom mode: predict whether the client accepts"),
        ("q Esc", "back, or quit from the lesson list"),
    ]

    /// The live lab's keys (`?` on the lab's screen).
    static let labKeys = [
        ("c", "the commands to paste, each with what it is like and what to expect; c again goes back"),
        ("↑ ↓", "in the commands: the previous or next command (also k j, PgUp PgDn, Home End)"),
        ("q Esc", "back from the commands; on the connections, stop the lab (its files are kept)"),
        ("^C", "stops the lab as q does, and so do SIGTERM, SIGHUP and SIGQUIT"),
    ]

    /// A key list, each description wrapped beside its keys.
    static func helpRows(_ keys: [(String, String)], width: Int) -> [PageRow] {
        let column = 2 + (keys.map(\.0.count).max() ?? 0) + 2
        return keys.flatMap { entry in
            wrap(entry.1, width: width - column - 1).enumerated().map { index, line in
                (index == 0 ? [(2, Self.line(entry.0, .accent))] : []) + [(column, Self.line(line, .normal))]
            }
        }
    }
}
