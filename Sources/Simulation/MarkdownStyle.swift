/// How a character of lesson Markdown is set once its marks are gone: `**strong**`, `` `code` `` and
/// `*emphasis*`. The console styles each; `mitmsim run`'s text keeps the characters alone.
public enum MarkdownStyle: Sendable, Equatable {
    case plain, strong, code, emphasis

    /// The paragraph's characters with their styles, the marks removed. Inside a code span every character is
    /// kept as written (a `*` in `*.bank.test` is no mark).
    public static func styled(_ paragraph: String) -> [(character: Character, style: MarkdownStyle)] {
        var result: [(character: Character, style: MarkdownStyle)] = []
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
                result.append((character, strong ? .strong : emphasis ? .emphasis : .plain))
            }
            index += 1
        }
        return result
    }

    /// `markdown` as plain text: each paragraph's marks removed, its line breaks and the blank lines between
    /// paragraphs kept.
    public static func plainText(_ markdown: String) -> String {
        markdown.components(separatedBy: "\n\n").map { String(styled($0).map(\.character)) }.joined(separator: "\n\n")
    }
}
