import Foundation
import Simulation

/// The screen being drawn, with the layout helpers every view shares.
struct Canvas {
    typealias StyledLine = [(character: Character, style: Style)]

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

    /// A screen whose runs are still going (`running`) or could not be made (`failure`).
    mutating func waiting(failure: String?, running: String) {
        guard let failure else {
            screen.put(running, row: 2, column: 2, style: .dim)
            return
        }
        paragraph(failure, row: 2, lines: height - 4, style: .warning, indent: 2)
        footer("q back")
    }

    // MARK: - Word wrap

    /// The console's one word wrap: greedy, keeping each character's style; a word longer than the line is
    /// split. Lines after the first start with `hanging` spaces (a trace step's text under its text, not its mark).
    static func wrap(_ line: StyledLine, width: Int, hanging: Int = 0) -> [StyledLine] {
        let width = max(1, width)
        let hanging = width > hanging + 8 ? hanging : 0
        let indent = StyledLine(repeating: (" ", .normal), count: hanging)
        var lines: [StyledLine] = []
        var current: StyledLine = []
        func room() -> Int { lines.isEmpty ? width : width - hanging }
        func end() {
            lines.append(lines.isEmpty ? current : indent + current)
            current = []
        }
        // Runs of spaces are kept (the verdict's two), except where a line breaks.
        for word in line.split(omittingEmptySubsequences: false, whereSeparator: { $0.character == " " }) {
            if word.isEmpty, current.isEmpty { continue }
            if !current.isEmpty, current.count + 1 + word.count > room() { end() }
            if !current.isEmpty { current.append((" ", current.last?.style == word.first?.style ? word.first?.style ?? .normal : .normal)) }
            current += word
            while current.count > room() {
                let rest = Array(current.dropFirst(room()))
                current = Array(current.prefix(room()))
                end()
                current = rest
            }
        }
        end()
        return lines
    }

    /// `text` as it is (no Markdown read), every character in `style`.
    static func line(_ text: String, _ style: Style) -> StyledLine { text.map { ($0, style) } }

    /// Plain `text` wrapped to `width`, each line break kept.
    static func wrap(_ text: String, width: Int, hanging: Int = 0) -> [String] {
        wrappedText.lines(text, width: width, hanging: hanging) {
            text.components(separatedBy: "\n").flatMap { paragraph in
                wrap(line(paragraph, .normal), width: width, hanging: hanging).map { String($0.map(\.character)) }
            }
        }
    }

    /// Plain text wrapped so far: a screen wraps the same sentences on every key.
    private static let wrappedText = WrapCache<[String]>(limit: 4096)

    /// Puts a styled line from (`row`, `column`); a control character takes the columns of its escape.
    mutating func put(_ line: StyledLine, row: Int, column: Int) {
        var column = column
        for (character, style) in line {
            column = screen.put(String(character), row: row, column: column, style: style)
        }
    }
}
