extension String {
    /// The text without white space at either end, exactly as Foundation's `trimmingCharacters(in:)` trims it with
    /// `.whitespacesAndNewlines` (Unicode's White_Space scalars and the zero-width space), or with `.whitespaces`
    /// when line breaks are kept.
    ///
    /// Foundation builds a character set on every call, which costs more than parsing the message: the relay trims
    /// every message it previews, on every connection.
    func trimmingWhiteSpace(includingLineBreaks: Bool = true) -> String {
        func isTrimmed(_ scalar: Unicode.Scalar) -> Bool {
            (scalar.properties.isWhitespace || scalar == "\u{200B}") && (includingLineBreaks || !Self.isLineBreak(scalar))
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }), let last = scalars.lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return String(scalars[first...last])
    }

    /// The White_Space scalars that `.whitespaces` leaves out: line feed through carriage return, NEL, and the
    /// line and paragraph separators.
    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        (0x0A...0x0D).contains(scalar.value) || scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}
