import Foundation
import Simulation

/// Lesson text in Markdown, laid out with attributes: `**bold**`, `` `code` `` and `*emphasis*` become
/// styles instead of the marks themselves.
extension Canvas {
    typealias StyledLine = [(character: Character, style: Style)]

    /// `markdown` wrapped to `width`: single line breaks are soft, a blank line ends a paragraph.
    static func markdownLines(_ markdown: String, width: Int) -> [StyledLine] {
        let paragraphs = markdown.trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: "\n\n")
            .map { $0.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") }
        return paragraphs.flatMap { wrap(styled($0, base: .normal), width: width) }
    }

    /// The paragraph's characters with their styles, marks removed (the engine reads the marks).
    static func styled(_ paragraph: String, base: Style) -> StyledLine {
        MarkdownStyle.styled(paragraph).map { character, style in
            switch style {
            case .plain: (character, base)
            case .strong: (character, .strong)
            case .code: (character, .code)
            case .emphasis: (character, .emphasis)
            }
        }
    }

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
        text.components(separatedBy: "\n").flatMap { paragraph in
            wrap(line(paragraph, .normal), width: width, hanging: hanging).map { String($0.map(\.character)) }
        }
    }

    /// Puts a styled line from (`row`, `column`); a control character takes the columns of its escape.
    mutating func put(_ line: StyledLine, row: Int, column: Int) {
        var column = column
        for (character, style) in line {
            column = screen.put(String(character), row: row, column: column, style: style)
        }
    }
}
