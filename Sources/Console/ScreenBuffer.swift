import Simulation

/// A screen drawn in memory: rows of styled cells. `render` fills one; only `Terminal` puts it on a tty.
///
/// Tests read `text` (and `style(at:)`), so what a person would see is checked without a terminal.
public struct ScreenBuffer: Equatable, Sendable {
    public struct Cell: Equatable, Sendable {
        public var character: Character
        public var style: Style
    }

    public let width: Int
    public let height: Int
    public private(set) var rows: [[Cell]]

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        rows = Array(repeating: Array(repeating: Cell(character: " ", style: .normal), count: width), count: height)
    }

    /// Writes `text` from (`row`, `column`), clipped to `width` columns and to the screen; returns the column
    /// after the last character written. Every string the console shows passes here, so here it is escaped as
    /// one line: no control character from a lesson, a certificate or a network client reaches a cell.
    /// Wide characters take two columns; the second holds a placeholder the terminal skips.
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int, style: Style = .normal, width limit: Int? = nil) -> Int {
        guard row >= 0, row < height else { return column }
        var column = max(0, column)
        let end = min(self.width, limit.map { column + $0 } ?? self.width)
        for character in TerminalText.escaped(text) {
            let span = Self.columns(character)
            guard column + span <= end else { break }
            rows[row][column] = Cell(character: character, style: style)
            if span == 2 { rows[row][column + 1] = Cell(character: Self.continuation, style: style) }
            column += span
        }
        return column
    }

    /// Paints `style` over a span without changing the characters (a highlighted row).
    public mutating func paint(row: Int, column: Int, width: Int, style: Style) {
        guard row >= 0, row < height else { return }
        for index in max(0, column)..<min(self.width, column + width) { rows[row][index].style = style }
    }

    public func style(at row: Int, _ column: Int) -> Style { rows[row][column].style }

    /// The screen as plain text, one line per row, trailing spaces removed.
    public var text: String {
        rows.map { row in
            var line = String(row.map(\.character).filter { $0 != Self.continuation })
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }

    /// Marks the second column of a wide character.
    static let continuation: Character = "\u{0}"

    /// Terminal columns a character takes: 2 for East Asian wide characters, else 1.
    public static func columns(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 1 }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }
}

/// What a cell means; `Terminal` turns meanings into colours (or into bold and reverse under NO_COLOR).
public enum Style: String, Hashable, Sendable, CaseIterable {
    case normal, dim, title, border, selected, accent
    case client, proxy, origin
    case passed, failed, note, skipped, deciding
    case accepted, rejected, leaked
    case warning
    /// Markdown in a lesson's text: `**bold**`, `` `code` `` and `*emphasis*`.
    case strong, code, emphasis
}

/// A key press, decoded from the terminal.
public enum Key: Hashable, Sendable {
    case up, down, left, right, home, end, pageUp, pageDown
    case enter, escape, backspace, tab
    case resize
    case character(Character)
}

/// Terminal size in columns and rows.
public struct Size: Hashable, Sendable {
    public let columns: Int
    public let rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }
}
