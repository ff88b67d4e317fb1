import Policies

/// One "Try:" of a lesson: keys to press from the lesson as written, and the verdict that follows. The
/// engine words the sentence (what each key changes, in `ScenarioEdit`'s words, then the verdict), and
/// `mitmsim run` and the tests press the keys and check the verdict, so the line cannot drift from the engine.
public struct LessonTry: Sendable, Decodable, Equatable {
    /// The keys as typed in the console, space-separated: `a d`, `P j space q`.
    public var keys: String
    /// The keys, read.
    public var presses: [LessonKey]
    public var trusted: Bool
    /// The check that decides after the keys; nil when the file leaves it out.
    public var decidingCheck: TraceStep.Check?
    /// Whether the attacker reads the request's secret after the keys; nil when the file leaves it out.
    public var attackerReadSecret: Bool?
    /// A short pointer for the learner ("that is lesson 3"), shown after the verdict. It says where to look,
    /// never what happens.
    public var note: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case keys, trusted, decidingCheck, attackerReadSecret, note }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        keys = try container.decodeValue(String.self, forKey: .keys)
        do {
            presses = try LessonKey.parse(keys)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .keys, in: container, debugDescription: error.reason)
        }
        trusted = try container.decodeValue(Bool.self, forKey: .trusted)
        decidingCheck =
            try container.contains(.decidingCheck)
            ? container.decodeChoice(TraceStep.Check.choices(for: decoder), forKey: .decidingCheck)
            : nil
        attackerReadSecret = try container.decodeValueIfPresent(Bool.self, forKey: .attackerReadSecret)
        note = try container.decodeValueIfPresent(String.self, forKey: .note)
    }

    /// The lesson after the keys, and the sentence for each key (nil for one that only moves the pins
    /// screen's cursor or opens or closes it).
    public func replay(on lesson: Scenario) -> (scenario: Scenario, changes: [String?]) {
        var scenario = lesson
        var cursor = 0
        let changes = presses.map { press -> String? in
            let edit: ScenarioEdit
            switch press {
            case .edit(let key):
                guard let made = LessonKey.edit(for: key, lesson: lesson) else { return nil }
                edit = made
            case .pins:
                cursor = 0
                return nil
            case .moveCursor(let step):
                cursor = LessonKey.pinsCursor(cursor, movedBy: step, count: scenario.certificateIDs.count)
                return nil
            case .leavePins: return nil
            case .togglePin:
                let ids = scenario.certificateIDs
                guard ids.indices.contains(cursor) else { return nil }
                edit = .togglePin(ids[cursor])
            }
            let (edited, change) = edit.apply(to: scenario)
            scenario = edited
            return change
        }
        return (scenario, changes)
    }

    /// "ACCEPTED at chainTrust", or "REJECTED" when the try names no deciding check: what the try says the run gives.
    public var claimedVerdict: String { (trusted ? "ACCEPTED" : "REJECTED") + (decidingCheck.map { " at \($0.rawValue)" } ?? "") }

    /// "Try: press `a` (allowInvalidCertificates NO → YES), then `d` (…): REJECTED at atsServerTrust, and the
    /// attacker never reads 'hunter2'." and the note, for `lesson` as written.
    public func sentence(for lesson: Scenario) -> String {
        // Keys that only move on the pins screen go with the next key that changes something: `P` `j` Space (pinned …).
        var pressed: [String] = []
        var moves: [String] = []
        for (press, change) in zip(presses, replay(on: lesson).changes) {
            moves.append(press.typed)
            guard let change else { continue }
            pressed.append(moves.joined(separator: " ") + " (\(change))")
            moves = []
        }
        if !moves.isEmpty { pressed.append(moves.joined(separator: " ")) }
        var verdict = claimedVerdict
        if let attackerReadSecret {
            verdict += attackerReadSecret ? ", and the attacker reads '\(lesson.request.secret)'" : ", and the attacker never reads '\(lesson.request.secret)'"
        }
        let sentence = "Try: press " + pressed.joined(separator: ", then ") + ": " + verdict + "."
        return note.map { sentence + " " + $0 } ?? sentence
    }
}
