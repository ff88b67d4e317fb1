/// A key a learner presses to change a lesson, as a try names it and the console reads it: one of the
/// walkthrough's edit keys (`a`, `d`, `p`, …), or the pins screen's (`P` opens and closes it, `j` and `k`
/// move its cursor, `space` pins or unpins the certificate under it, `q` leaves it).
///
/// The walkthrough's table of edits is here, so the console and `mitmsim run` press the same keys.
public enum LessonKey: Sendable, Equatable {
    /// A walkthrough key that edits the lesson.
    case edit(Character)
    /// `P`: opens the pins screen, or closes it.
    case pins
    /// `j` (+1) or `k` (-1) on the pins screen.
    case moveCursor(Int)
    /// `space` on the pins screen.
    case togglePin
    /// `q` on the pins screen.
    case leavePins

    /// The walkthrough's edit keys, in the order the console's help lists them.
    public static let editKeys: [Character] = ["a", "d", "p", "A", "F", "t", "c", "D", "v", "L", "H", "S", "E", "I", "r"]

    /// The edit a walkthrough key makes; `lesson` is the lesson as written (what `t`, `c`, `E`, `F` and `r` go back
    /// to). Nil for a key that edits nothing.
    public static func edit(for key: Character, lesson: Scenario) -> ScenarioEdit? {
        switch key {
        case "a": .toggleAllowInvalidCertificates
        case "d": .toggleValidatesDomainName
        case "p": .nextPinningMode
        case "A": .nextAttack
        case "F": .toggleHooks(lesson: lesson)
        case "t": .toggleAttackerCA(lesson: lesson)
        case "c": .toggleClock(lesson: lesson)
        case "D": .toggleDomain
        case "v": .nextTLSVersions
        case "L": .nextLibrary
        case "H": .nextChallengeHandler
        case "S": .toggleArbitraryLoads
        case "E": .toggleInsecureHTTPException(lesson: lesson)
        case "I": .nextPinnedIdentities(lesson: lesson)
        case "r": .reset(lesson: lesson)
        default: nil
        }
    }

    /// The keys of `text` (space-separated, as typed: `a d`, `P j space q`), each read on the screen the keys
    /// before it lead to. Throws a reason naming the first key that changes nothing there.
    static func parse(_ text: String) throws(KeyError) -> [LessonKey] {
        let tokens = text.split(separator: " ").map(String.init)
        guard !tokens.isEmpty else { throw KeyError(reason: "is empty: name the keys to press, such as \"a d\"") }
        var onPins = false
        let keys = try tokens.map { token throws(KeyError) -> LessonKey in
            let key: LessonKey? =
                switch (onPins, token) {
                case (_, "P"): .pins
                case (true, "j"): .moveCursor(1)
                case (true, "k"): .moveCursor(-1)
                case (true, "space"): .togglePin
                case (true, "q"): .leavePins
                case (false, _) where token.count == 1 && editKeys.contains(token[token.startIndex]): .edit(token[token.startIndex])
                default: nil
                }
            guard let key else {
                let keys =
                    onPins
                    ? "on the pins screen: j, k, space, q or P" : "in the walkthrough: \(editKeys.map(String.init).joined(separator: ", ")) or P"
                throw KeyError(reason: "'\(token)' is not a key that changes the lesson \(keys)")
            }
            if key == .pins || key == .leavePins { onPins = key == .pins && !onPins }
            return key
        }
        guard keys.contains(where: \.edits) else {
            throw KeyError(reason: "changes nothing: name a key that edits the lesson (on the pins screen, space)")
        }
        return keys
    }

    /// True for a key that changes the lesson; the others only move on the pins screen.
    var edits: Bool {
        switch self {
        case .edit, .togglePin: true
        case .pins, .moveCursor, .leavePins: false
        }
    }

    /// Why a try's keys cannot be read.
    struct KeyError: Error {
        let reason: String
    }

    /// The pins screen's cursor moved by `step`, kept on one of `count` certificates: the console and a try's
    /// replay move it the same way.
    public static func pinsCursor(_ cursor: Int, movedBy step: Int, count: Int) -> Int { min(max(0, count - 1), max(0, cursor + step)) }

    /// How a try's sentence names the key: `a`, Space.
    var typed: String {
        switch self {
        case .edit(let key): "`\(key)`"
        case .pins: "`P`"
        case .moveCursor(let step): step > 0 ? "`j`" : "`k`"
        case .togglePin: "Space"
        case .leavePins: "`q`"
        }
    }
}
