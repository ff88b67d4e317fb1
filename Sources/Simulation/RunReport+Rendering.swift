import Foundation
import LoopbackTLS
import PKI
import Policies

extension RunReport {
    /// What every renderer says when the handshake ended before the policy ran.
    public static let noChainJudged = "The client never saw a chain to judge."
    /// What the network section says when the app refused to connect at all.
    public static let noConnection = "(nothing: the app opened no connection)"

    /// The lesson view: the lesson, every event, every policy step, the verdict and the expectations. Each line
    /// quotes the file or the wire (names, labels, what the attacker read), so each is escaped as one line; the
    /// lesson keeps its paragraphs.
    public var text: String {
        let heading = ["\(scenario.id): \(scenario.title)", "group: \(scenario.group)"]
        var lines = ["Network, in order (each party reports what it sent):"]
        lines += events.isEmpty ? ["  " + Self.noConnection] : events.map { "  \($0)" }
        lines.append("")
        lines += settingsLines
        lines += evaluation.map { $0.steps.map { "  \($0)" } } ?? ["  " + Self.noChainJudged]
        lines.append("")
        lines.append("Verdict: \(verdict). " + outcome.joined(separator: " "))
        if let transparencyMonitor { lines.append(transparencyMonitor) }
        lines.append(expectationLine)
        lines += tryLines
        let lesson = TerminalText.escaped(MarkdownStyle.plainText(scenario.lessonText), keepingLineBreaks: true)
        return (heading.map { TerminalText.escaped($0) } + ["", lesson, ""] + lines.map { TerminalText.escaped($0) }).joined(separator: "\n") + "\n"
    }

    var expectationLine: String {
        let failed = checks.filter { !$0.met }
        guard !failed.isEmpty else { return "Expectations: all \(checks.count) met." }
        return "Expectations NOT met: " + failed.map { "\($0.name) expected \($0.expected), got \($0.actual)" }.joined(separator: "; ") + "."
    }

    /// Each try after the expectations: its keys, the verdict they led to, and whether that is what the try says.
    var tryLines: [String] {
        tries.map { result in
            let expected = result.lessonTry
            let claimed =
                expected.claimedVerdict
                + (expected.attackerReadSecret.map { $0 ? ", secret read" : ", secret not read" } ?? "")
            let got = result.verdict + ", secret \(result.attackerReadSecret ? "read" : "not read")"
            return "Try '\(expected.keys)': " + (result.held ? "held (\(got))." : "did NOT hold: expected \(claimed), got \(got).")
        }
    }

    /// A handout: the lesson, a table of what crossed the wire, the decision, the verdict. Escaped for a terminal
    /// as `text` is, each field before the table's own `\|`, so the escaping never doubles the table's backslashes.
    public var markdown: String {
        func field(_ text: String) -> String { TerminalText.escaped(text) }
        var lines = [
            "# \(field(scenario.title))", "", "*\(field(scenario.group))*", "",
            "## Question", "", TerminalText.escaped(scenario.lesson.story.trimmingCharacters(in: .whitespacesAndNewlines), keepingLineBreaks: true), "",
            // The id goes with the answer: many ids say how the lesson ends.
            "## Answer", "", "Lesson `\(field(scenario.id))`.", "", TerminalText.escaped(scenario.revealText, keepingLineBreaks: true), "",
        ]
        lines += ["## What crossed the wire", ""]
        lines += events.isEmpty ? [Self.noConnection] : ["| # | from | to | what |", "|---|---|---|---|"]
        for (index, event) in events.enumerated() {
            lines.append(
                "| \(index + 1) | \(event.actor.rawValue) | \(event.peer?.rawValue ?? "") | \(field(event.text).replacingOccurrences(of: "|", with: "\\|")) |")
        }
        lines += ["", "## How the app decided", ""] + settingsLines.map { "- " + field($0) } + [""]
        lines +=
            evaluation.map {
                $0.steps.enumerated().map {
                    "\($0.offset + 1). **\($0.element.outcome.rawValue)** `\($0.element.check.rawValue)`: \(field($0.element.detail))"
                }
            }
            ?? [Self.noChainJudged]
        lines += ["", "## Verdict", "", "**\(verdict)**. " + field(outcome.joined(separator: " ")), ""]
        if let transparencyMonitor { lines += [field(transparencyMonitor), ""] }
        if !tries.isEmpty { lines += ["## Tries", ""] + tryLines.map { "- " + field($0) } + [""] }
        return lines.joined(separator: "\n")
    }

    /// `{"scenario", "title", "trusted", "decidingCheck", "attackerSawPlaintext", "serverReceivedRequest", "expectationsMet", "steps", "events",
    /// "tries", …}`.
    var json: JSONRun { JSONRun(self) }

    public static func json(_ reports: [RunReport]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        // Both documents hold only strings, numbers and booleans, which always encode.
        if reports.count == 1 {
            data = try! encoder.encode(reports[0].json)
        } else {
            let passed = reports.filter(\.expectationsMet).count
            data = try! encoder.encode(JSONBatch(results: reports.map(\.json), passed: passed, failed: reports.count - passed))
        }
        return TerminalText.escapedJSON(String(decoding: data, as: UTF8.self))
    }
}

struct JSONBatch: Encodable {
    let results: [JSONRun]
    let passed: Int
    let failed: Int
}

struct JSONRun: Encodable {
    struct Event: Encodable { let actor: String, to: String?, text: String }
    struct Failed: Encodable { let name: String, expected: String, actual: String }

    let scenario: String
    let title: String
    let trusted: Bool
    let decidingCheck: Nullable<String>
    /// What the app's request fails with, or null.
    let urlError: Nullable<NSURLError>
    let attackerSawPlaintext: Bool
    let attackerReadSecret: Bool
    let serverReceivedRequest: Bool
    let handshakeCompleted: Bool
    let expectationsMet: Bool
    let unmetExpectations: [Failed]
    let steps: [TraceStep]
    let events: [Event]
    let tries: [Try]

    /// `{"keys": "a d", "trusted": false, "decidingCheck": "atsServerTrust", "held": true}`: what followed the keys.
    struct Try: Encodable {
        let keys: String
        let trusted: Bool
        let decidingCheck: Nullable<String>
        let held: Bool
    }

    init(_ report: RunReport) {
        scenario = report.scenario.id
        title = report.scenario.title
        trusted = report.trusted
        decidingCheck = Nullable(report.decidingCheck?.rawValue)
        urlError = Nullable(report.evaluation?.urlError)
        attackerSawPlaintext = report.result.attackerSawPlaintext
        attackerReadSecret = report.attackerView.readSecret
        serverReceivedRequest = report.serverReceivedRequest
        handshakeCompleted = report.handshakeCompleted
        expectationsMet = report.expectationsMet
        unmetExpectations = report.checks.filter { !$0.met }.map { Failed(name: $0.name, expected: $0.expected, actual: $0.actual) }
        steps = report.evaluation?.steps ?? []
        events = report.events.map { Event(actor: $0.actor.rawValue, to: $0.peer?.rawValue, text: $0.text) }
        tries = report.tries.map { Try(keys: $0.lessonTry.keys, trusted: $0.trusted, decidingCheck: Nullable($0.decidingCheck?.rawValue), held: $0.held) }
    }
}
