import Foundation

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

    /// The paragraph's characters with their styles, marks removed.
    static func styled(_ paragraph: String, base: Style) -> StyledLine {
        var result: StyledLine = []
        var (strong, code, emphasis) = (false, false, false)
        let characters = Array(paragraph)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if code {
                if character == "`" { code = false } else { result.append((character, .code)) }
            } else if character == "`" {
                code = true
            } else if character == "*", next == "*" {
                strong.toggle()
                index += 1
            } else if character == "*", emphasis || (next.map { $0 != " " } ?? false) && characters[(index + 1)...].contains("*") {
                emphasis.toggle()
            } else {
                result.append((character, strong ? .strong : emphasis ? .emphasis : base))
            }
            index += 1
        }
        return result
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
