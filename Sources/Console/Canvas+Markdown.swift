import Foundation
import Simulation

/// Lesson text in Markdown, laid out with attributes: `**bold**`, `` `code` `` and `*emphasis*` become
/// styles instead of the marks themselves.
extension Canvas {
    /// `markdown` wrapped to `width`: single line breaks are soft, a blank line ends a paragraph.
    static func markdownLines(_ markdown: String, width: Int) -> [StyledLine] {
        wrappedMarkdown.lines(markdown, width: width) {
            let paragraphs = markdown.trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: "\n\n")
                .map { $0.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") }
            return paragraphs.flatMap { wrap(styled($0, base: .normal), width: width) }
        }
    }

    /// Lesson text laid out so far: the lesson pane lays out the same text on every key.
    private static let wrappedMarkdown = WrapCache<[StyledLine]>(limit: 64)

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
}
