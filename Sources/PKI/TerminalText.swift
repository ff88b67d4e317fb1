/// Text from outside mitmsim (a scenario file, a certificate, a file name, what a network client sent) as a
/// terminal may show it: a shared lesson or a hostile client must not retitle, clear or recolour the screen of
/// whoever reads it, nor fake a line of a trace.
///
/// One scheme everywhere, and it is reversible: a backslash is doubled, ESC is `\e`, BEL `\a`, tab `\t`, line
/// feed `\n`, carriage return `\r`, and every other C0 control, DEL, C1 control, line or paragraph separator and
/// bidirectional formatting character (which reorders what a reader sees) is `\u{XX}` with its code point in
/// hexadecimal, at least two digits (`\u{01}`, `\u{9B}`, `\u{202E}`). It lives in `PKI`, the module every
/// other imports, so certificate cards and policy traces use it as well as the front ends.
public enum TerminalText {
    /// `text` with every character that could steer a terminal or fake a line shown as a visible escape.
    /// - Parameter keepingLineBreaks: true for text whose line feeds are its layout (a lesson's paragraphs);
    ///   false for a field shown on one line (a title, a subject, a request line), where a line feed is escaped.
    public static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        // Almost all text has nothing to escape, and the console escapes every string it draws: return it as it is.
        guard text.unicodeScalars.contains(where: { $0 == "\\" || steersTerminal($0) }) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n" where keepingLineBreaks: result.unicodeScalars.append(scalar)
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{1B}": result += "\\e"
            case "\u{07}": result += "\\a"
            case _ where steersTerminal(scalar): result += "\\u{" + hex(scalar, digits: 2) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A document from `JSONEncoder`, which escapes C0 controls but leaves DEL, C1 controls, the separators and the
    /// bidirectional formatting characters raw, with those written as JSON escapes (`\u009B`): it decodes to the
    /// same values, and a terminal that shows it obeys none of them.
    public static func escapedJSON(_ json: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(json.unicodeScalars.count)
        // Below DEL only the document's own line breaks remain: the encoder escaped every other control.
        for scalar in json.unicodeScalars {
            if scalar.value >= 0x7F, steersTerminal(scalar) {
                result += "\\u" + hex(scalar, digits: 4).lowercased()
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// C0 and C1 controls, DEL, the line and paragraph separators, and the bidirectional formatting characters.
    private static func steersTerminal(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func hex(_ scalar: Unicode.Scalar, digits: Int) -> String {
        String(scalar.value, radix: 16, uppercase: true).leftPadded(to: digits)
    }
}
