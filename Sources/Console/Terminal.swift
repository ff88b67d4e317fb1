internal import CNcurses
import Foundation

/// The full-screen terminal: the only place in mitmsim that talks to ncurses.
///
/// `open` puts the terminal into curses mode; `close` (or process exit, or a fatal signal, through
/// `TerminalRestoration`) gives it back, so a shell is always usable afterwards. Everything the console
/// shows arrives as a `ScreenBuffer`.
public final class Terminal {
    /// True when the locale is UTF-8: box drawing and symbols are drawn as they are; otherwise as ASCII.
    public let isUnicode: Bool

    private let screen: OpaquePointer
    private let attributes: [Style: Int32]
    private var isOpen = true

    /// Opens the terminal with the normal palette.
    public static func open() throws -> Terminal {
        try open(highContrast: false)
    }

    /// Opens the terminal for full-screen use.
    ///
    /// Throws `TerminalError` when standard input or output is not a terminal or TERM is unusable; never exits.
    /// - Parameter stopSignals: signals (of SIGINT, SIGTERM, SIGHUP, SIGQUIT) that only ask the program to stop
    ///   (`stopSignal` says which came) instead of ending it: the caller closes the terminal and ends as it would on q.
    public static func open(highContrast: Bool, stopSignals: Set<Int32> = []) throws -> Terminal {
        setlocale(LC_ALL, "")
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw TerminalError.notATerminal }
        let term = getenv("TERM").map { String(cString: $0) } ?? ""
        guard let output = fdopen(STDOUT_FILENO, "w") else { throw TerminalError.notATerminal }
        guard let input = fdopen(STDIN_FILENO, "r") else { throw TerminalError.notATerminal }

        // Before newterm: ncurses only installs its own SIGINT/SIGTERM handlers when they are still the default.
        TerminalRestoration.install(stopping: stopSignals)
        _ = exitHandler
        guard let screen = newterm(nil, output, input) else {
            TerminalRestoration.uninstall()
            throw TerminalError.cannotInitialise(term: term)
        }
        set_term(screen)
        // Without cursor addressing nothing the console draws reaches the screen, and it would wait for keys on a blank one.
        guard let cursorAddress = tigetstr("cup"), Int(bitPattern: cursorAddress) != -1 else {
            endwin()
            delscreen(screen)
            TerminalRestoration.uninstall()
            throw TerminalError.cannotDraw(term: term)
        }
        // Terminfo is loaded now: the strings that leave curses mode, for a signal handler that cannot call endwin.
        TerminalRestoration.activate(
            leavingCursesWith: ["rmcup", "rmkx", "sgr0", "cnorm"].compactMap { capability in
                guard let value = tigetstr(capability), Int(bitPattern: value) != -1 else { return nil }
                return Array(String(cString: value).utf8)
            })

        cbreak()
        noecho()
        nonl()
        let window = CNcurses_stdscr()
        keypad(window, true)
        intrflush(window, false)
        curs_set(0)
        set_escdelay(25)

        let environment = getenv("NO_COLOR").map { String(cString: $0) } ?? ""
        let palette: Palette
        if !environment.isEmpty || !has_colors() {
            palette = .attributesOnly
        } else {
            palette = highContrast ? .highContrast : .normal
        }
        return Terminal(screen: screen, isUnicode: Self.localeIsUTF8(), attributes: palette.install())
    }

    /// Registered once, at the first `open`: a normal exit (not a signal, so endwin may be called) leaves curses mode.
    private static let exitHandler: Void = {
        atexit {
            if TerminalRestoration.isActive, !isendwin() { endwin() }
            TerminalRestoration.deactivate()
        }
    }()

    private init(screen: OpaquePointer, isUnicode: Bool, attributes: [Style: Int32]) {
        self.screen = screen
        self.isUnicode = isUnicode
        self.attributes = attributes
    }

    deinit { close() }

    /// The first of the `stopSignals` given to `open` that has arrived since, if any: the program should stop now.
    public var stopSignal: Int32? {
        let signal = TerminalRestoration.stopSignal
        return signal == 0 ? nil : signal
    }

    /// The terminal's current size; re-read it after `readKey` returns `.resize`.
    public var size: Size {
        guard isOpen else { return Size(columns: 0, rows: 0) }
        var rows: Int32 = 0
        var columns: Int32 = 0
        CNcurses_getmaxyx(CNcurses_stdscr(), &rows, &columns)
        return Size(columns: Int(max(0, columns)), rows: Int(max(0, rows)))
    }

    /// The next key if one comes within `milliseconds`, else nil: for screens that change on their own
    /// (the live lab), which redraw between keys.
    public func readKey(waitingAtMost milliseconds: Int32) -> Key? {
        let window = CNcurses_stdscr()
        wtimeout(window, milliseconds)
        defer { wtimeout(window, -1) }
        var value: wint_t = 0
        switch get_wch(&value) {
        case KEY_CODE_YES: return Self.functionKey(Int32(bitPattern: value))
        case OK: return Self.characterKey(UInt32(value))
        default: return nil
        }
    }

    /// Waits for the next key. A terminal resize arrives as `.resize`.
    ///
    /// When input is gone for good (the terminal hung up), the process gets SIGHUP, which restores the terminal and ends it.
    public func readKey() -> Key {
        var failures = 0
        while true {
            var value: wint_t = 0
            let result = get_wch(&value)
            if result == KEY_CODE_YES {
                failures = 0
                if let key = Self.functionKey(Int32(bitPattern: value)) { return key }
                continue  // a key the console does not use (F1, Insert…)
            }
            if result == OK {
                return Self.characterKey(UInt32(value))
            }
            // ERR: interrupted by a signal (retry), or input closed (hang up after a few tries).
            if errno == EINTR { continue }
            failures += 1
            if failures >= 20 {
                raise(SIGHUP)
                failures = 0
            }
            usleep(10_000)
        }
    }

    /// Replaces what is on the screen with `screen`: every cell with its style, then one refresh.
    public func draw(_ screen: ScreenBuffer) {
        guard isOpen else { return }
        let size = self.size
        erase()
        for (rowIndex, row) in screen.rows.prefix(size.rows).enumerated() {
            var column = 0
            var runStart = 0
            var runText = ""
            var runStyle: Style? = nil
            var runColumns = 0

            func flush() {
                guard let style = runStyle, !runText.isEmpty else { return }
                let available = size.columns - runStart
                guard available > 0 else { return }
                attrset(attributes[style] ?? 0)
                mvaddstr(Int32(rowIndex), Int32(runStart), runColumns > available ? Self.clip(runText, to: available) : runText)
                attrset(0)
            }

            for cell in row {
                defer { column += 1 }
                if cell.character == ScreenBuffer.continuation {
                    // Second column of a wide character: the terminal already advanced past it.
                    // In ASCII mode the wide character became one '?', so pad with another to keep columns aligned.
                    if !isUnicode {
                        if runStyle != cell.style {
                            flush()
                            runStart = column
                            runText = ""
                            runColumns = 0
                            runStyle = cell.style
                        }
                        runText += "?"
                        runColumns += 1
                    }
                    continue
                }
                if runStyle != cell.style {
                    flush()
                    runStart = column
                    runText = ""
                    runColumns = 0
                    runStyle = cell.style
                }
                let text = isUnicode ? Self.printable(cell.character) : Self.ascii(cell.character)
                runText += text
                runColumns += isUnicode ? ScreenBuffer.columns(cell.character) : text.count
            }
            flush()
        }
        refresh()
    }

    /// Gives the terminal back (endwin). Safe to call more than once.
    public func close() {
        guard isOpen else { return }
        isOpen = false
        attrset(0)
        endwin()
        TerminalRestoration.deactivate()
        TerminalRestoration.uninstall()
        fflush(nil)
    }

    // MARK: - Keys

    private static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_HOME, KEY_A1: return .home
        case KEY_END, KEY_C1: return .end
        case KEY_PPAGE, KEY_A3: return .pageUp
        case KEY_NPAGE, KEY_C3: return .pageDown
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_BTAB: return .tab
        case KEY_RESIZE: return .resize
        default: return nil
        }
    }

    private static func characterKey(_ value: UInt32) -> Key {
        switch value {
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 9: return .tab
        default:
            guard let scalar = Unicode.Scalar(value) else { return .character("?") }
            return .character(Character(scalar))
        }
    }

    // MARK: - Characters

    /// Control characters would move the cursor (a newline clears the rest of the line); draw them as spaces.
    private static func printable(_ character: Character) -> String {
        if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1,
            scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
        {
            return " "
        }
        return String(character)
    }

    /// The ASCII stand-in for `character` when the locale cannot show Unicode.
    static func ascii(_ character: Character) -> String {
        if character.isASCII { return printable(character) }
        switch character {
        case "─", "━", "═", "╌", "┄": return "-"
        case "│", "┃", "║", "╎", "┆": return "|"
        case "┌", "┐", "└", "┘", "├", "┤", "┬", "┴", "┼",
            "╭", "╮", "╰", "╯", "┏", "┓", "┗", "┛", "╔", "╗", "╚", "╝", "╠", "╣", "╦", "╩", "╬":
            return "+"
        case "→", "▶", "►", "⟶": return ">"
        case "←", "◀", "◄", "⟵": return "<"
        case "↑", "▲": return "^"
        case "↓", "▼": return "v"
        case "✓", "✔": return "v"
        case "✗", "✘", "×": return "x"
        case "•", "·", "●": return "*"
        case "…": return "..."
        case "\u{A0}": return " "
        default: return "?"
        }
    }

    /// The longest prefix of `text` that fits in `columns` terminal columns.
    private static func clip(_ text: String, to columns: Int) -> String {
        var result = ""
        var used = 0
        for character in text {
            let width = ScreenBuffer.columns(character)
            if used + width > columns { break }
            result.append(character)
            used += width
        }
        return result
    }

    private static func localeIsUTF8() -> Bool {
        if let codeset = nl_langinfo(nl_item(CODESET)) {
            let name = String(cString: codeset).lowercased().filter { $0 != "-" }
            return name == "utf8"
        }
        return false
    }
}

// MARK: - Colours

/// How styles become curses attributes.
enum Palette {
    case normal, highContrast, attributesOnly

    /// Sets up colour pairs (when colours are used) and returns the attribute for every style.
    func install() -> [Style: Int32] {
        guard self != .attributesOnly else { return Dictionary(uniqueKeysWithValues: Style.allCases.map { ($0, ink($0).attributes) }) }
        start_color()
        // -1 is the terminal's own background (and foreground); without use_default_colors fall back to black/white.
        let defaults = use_default_colors() == OK
        let background: Int16 = defaults ? -1 : Int16(COLOR_BLACK)
        let foreground: Int16 = defaults ? -1 : Int16(COLOR_WHITE)
        // COLORS is a C global Swift 6 rejects (no shim); terminfo's "colors" is the value ncurses copies into it.
        let bright = self == .highContrast && tigetnum("colors") >= 16

        func colour(_ base: Int32) -> Int16 { Int16(bright ? base + 8 : base) }

        var table: [Style: Int32] = [:]
        for (index, style) in Style.allCases.enumerated() {
            let pair = Int16(index + 1)
            let (base, attributes) = ink(style)
            let fg = base.map(colour) ?? foreground
            // init_pair fails when the terminal has fewer pairs (COLOR_PAIRS, another global); then attributes alone.
            table[style] = attributes | (init_pair(pair, fg, background) == OK ? CNcurses_COLOR_PAIR(Int32(pair)) : 0)
        }
        return table
    }

    /// A style's colour (a curses base colour, nil for the terminal's own) and attributes. A refusal and
    /// a leak differ in both, so neither is ever read as the other.
    func ink(_ style: Style) -> (colour: Int32?, attributes: Int32) {
        let (bold, reverse, dim, underline) = (CNcurses_A_BOLD(), CNcurses_A_REVERSE(), CNcurses_A_DIM(), CNcurses_A_UNDERLINE())
        if self == .attributesOnly {
            let attributes: Int32 =
                switch style {
                case .normal, .border, .client, .proxy, .origin, .passed: 0
                case .dim, .note, .skipped: dim
                case .title, .leaked: bold | underline
                case .accent, .failed, .rejected, .accepted, .strong, .code: bold
                case .selected: reverse
                case .deciding: reverse | bold
                case .warning, .emphasis: underline
                }
            return (nil, attributes)
        }
        let (colour, attributes): (Int32?, Int32) =
            switch style {
            case .normal, .strong: (nil, style == .strong ? bold : 0)
            case .dim, .note, .skipped: (nil, self == .highContrast ? 0 : dim)
            case .title, .accent: (COLOR_YELLOW, bold)
            case .border: (self == .highContrast ? nil : COLOR_CYAN, self == .highContrast ? bold : dim)
            case .selected: (nil, reverse)
            case .deciding: (COLOR_YELLOW, reverse | bold)
            case .client, .code: (COLOR_CYAN, 0)
            case .proxy: (COLOR_MAGENTA, 0)
            case .origin: (COLOR_BLUE, 0)
            case .passed: (COLOR_GREEN, 0)
            case .accepted: (COLOR_GREEN, bold)
            case .failed: (COLOR_RED, 0)
            case .rejected: (COLOR_RED, bold)
            // The attacker's colour, and underlined: what was stolen, not what was refused.
            case .leaked: (COLOR_MAGENTA, bold | underline)
            case .warning: (COLOR_YELLOW, 0)
            case .emphasis: (nil, underline)
            }
        guard self == .highContrast else { return (colour, attributes) }
        return (colour, style == .selected || style == .deciding ? reverse | bold : attributes | bold)
    }
}
