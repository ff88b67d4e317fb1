/// Why the console cannot take over the terminal; `description` is one line for the user.
public enum TerminalError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Standard input or standard output is not a terminal (a pipe, a file, CI without a TTY).
    case notATerminal
    /// ncurses refused the terminal, usually because TERM is unset or has no terminfo entry.
    case cannotInitialise(term: String)
    /// TERM names a terminal that cannot move its cursor (`dumb`, a printing terminal): the screen would stay blank.
    case cannotDraw(term: String)

    public var description: String {
        switch self {
        case .notATerminal:
            return "the console needs a terminal: standard input and standard output must both be a terminal"
        case .cannotInitialise(let term):
            return term.isEmpty ? "cannot initialise the terminal: TERM is not set" : "cannot initialise the terminal (TERM=\(term))"
        case .cannotDraw(let term):
            return "the terminal (TERM=\(term)) cannot move its cursor, so the console cannot draw on it"
        }
    }
}
