import Simulation

/// The help: the keys of the screen under it, as a page.
extension Canvas {
    /// The keys of the screen under the help: the live lab's, or the console's.
    mutating func help(_ state: ConsoleState) {
        header(state.screen == .lab ? "keys of the classroom lab" : "keys")
        page(Self.pageContent(state, width: width) ?? [], scroll: state.helpScroll, footer: "? or q closes this help")
    }

    static let keys = [
        ("↑ ↓ Enter", "choose and open a lesson (lesson list); PgUp PgDn page it; / filters (Enter opens the first match), Esc clears"),
        ("Tab", "walkthrough: move the focus between the diagram, the app's trace and the lesson's text"),
        ("↑ ↓ PgUp PgDn", "move in the pane with the focus: the diagram's steps, the trace's steps, or the lesson's lines; Home End first and last"),
        ("→ ← Space", "next and previous step of the diagram, whatever has the focus"),
        ("Enter", "open the selected event or trace step whole (q closes it)"),
        ("j", "jump to the client's decision (hidden until a class answers)"),
        ("a", "toggle allowInvalidCertificates (the lesson runs again for real)"),
        ("d", "toggle validatesDomainName"),
        ("p", "cycle the pinning mode: none, publicKey, certificate"),
        ("P", "choose the pinned certificates"),
        ("A", "cycle the attack"),
        ("F", "the attacker inside the app's process: the lesson's hooks (or every tool's) on, or off"),
        ("t", "the attacker's CA: installed, then full trust off, then removed"),
        ("c", "clock: the lesson's time, or a day after the server's leaf expires"),
        ("D", "domain: the host, or nil (the policy is not told the host)"),
        ("v", "the server's TLS versions: any, 1.2 only, 1.3 only"),
        ("L", "cycle the AFNetworking release: 4, 2.6, 2.5.3 … 2.1, 2.0"),
        ("H", "the challenge handler: afnetworking, acceptAll, systemDefault, identityBlock"),
        ("S E I", "ATS: NSAllowsArbitraryLoads (S); the host's http exception (E); its pins (I)"),
        ("r", "reset everything to the lesson as written (after an edit only the lesson's story is shown)"),
        ("x i", "what the attacker read (after the answer); certificates: shown vs real (↑↓ scroll)"),
        ("m", "policy × attack matrix; Enter loads a cell; g shows the legend (after the answer)"),
        ("C", "every client model against this attack; Enter shows one's trace (↑↓ scroll)"),
        ("y n", "classroom mode: predict whether the client accepts"),
        ("q Esc", "back, or quit from the lesson list"),
    ]

    /// The live lab's keys (`?` on the lab's screen).
    static let labKeys = [
        ("c", "the commands to paste, each with what it is like and what to expect; c again goes back"),
        ("↑ ↓", "in the commands: the previous or next command (also k j, PgUp PgDn, Home End)"),
        ("q Esc", "back from the commands; on the connections, stop the lab (its files are kept)"),
        ("^C", "stops the lab as q does, and so do SIGTERM, SIGHUP and SIGQUIT"),
    ]

    /// A key list, each description wrapped beside its keys.
    static func helpRows(_ keys: [(String, String)], width: Int) -> [PageRow] {
        let column = 2 + (keys.map(\.0.count).max() ?? 0) + 2
        return keys.flatMap { entry in
            wrap(entry.1, width: width - column - 1).enumerated().map { index, line in
                (index == 0 ? [(2, Self.line(entry.0, .accent))] : []) + [(column, Self.line(line, .normal))]
            }
        }
    }
}
