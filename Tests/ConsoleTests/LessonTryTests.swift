import Console
import Simulation
import Testing

/// Every lesson's tries, typed into the walkthrough key by key as a learner types them: each re-runs the
/// lesson for real and ends at the verdict the try states, with the settings `mitmsim run` reaches by the
/// same keys.
struct LessonTryTests {
    /// The console's key for a try's key as written: `space`, or one character.
    static func key(_ typed: Substring) -> Key { typed == "space" ? .character(" ") : .character(Character(String(typed))) }

    /// The walkthrough of `id` after `keys`, as typed (`a d`, `P j space q`).
    static func after(_ keys: String, in id: String) -> ConsoleState {
        var state = ConsoleRenderTests.walkthrough(id)
        ConsoleUpdateTests.press(keys.split(separator: " ").map(key), &state)
        return state
    }

    @Test(arguments: ConsoleRenderTests.catalog.map(\.id))
    func everyTryHoldsWhenItsKeysArePressedInTheConsole(_ id: String) throws {
        let lesson = try #require(ConsoleRenderTests.catalog.first { $0.id == id })
        #expect(!lesson.lesson.tries.isEmpty, "\(id) has no try")
        for lessonTry in lesson.lesson.tries {
            let state = Self.after(lessonTry.keys, in: id)
            let report = try #require(state.report)
            #expect(RunReport.TryResult(lessonTry, report).held, "\(id) '\(lessonTry.keys)': \(report.verdict)")
            let (replayed, changes) = lessonTry.replay(on: lesson)
            #expect(try #require(state.scenario).changes(from: replayed).isEmpty, "\(id) '\(lessonTry.keys)': run's keys reach other settings")
            let last = try #require(changes.compactMap { $0 }.last)
            #expect(state.change?.hasPrefix(last + ": ") == true, "\(id): the console says '\(state.change ?? "")'")
        }
    }
}
