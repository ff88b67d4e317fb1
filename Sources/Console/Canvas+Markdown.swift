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

    /// Greedy word wrap that keeps each character's style; a word longer than the line is split.
    static func wrap(_ line: StyledLine, width: Int) -> [StyledLine] {
        var lines: [StyledLine] = []
        var current: StyledLine = []
        let words = line.split(omittingEmptySubsequences: true) { $0.character == " " }
        for word in words {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = []
            }
            if !current.isEmpty { current.append((" ", current.last?.style == word.first?.style ? word.first?.style ?? .normal : .normal)) }
            current += word
            while current.count > width {
                lines.append(Array(current.prefix(width)))
                current = Array(current.dropFirst(width))
            }
        }
        lines.append(current)
        return lines
    }

    /// Puts a styled line from (`row`, `column`); a control character takes the columns of its escape.
    mutating func put(_ line: StyledLine, row: Int, column: Int) {
        var column = column
        for (character, style) in line {
            column = screen.put(String(character), row: row, column: column, style: style)
        }
    }
}
