import Foundation
import Policies
import Simulation
import Testing

/// A class can vote on every lesson: the story sets the scene and asks, the reveal explains and ends with a key to press.
struct LessonTextTests {
    static let lessons: [Scenario] = (try? ScenarioLoader.loadAll(in: CatalogTests.scenarios)) ?? []
    /// The walkthrough's keys that change a lesson's settings (the console's help lists them all).
    static let editKeys: Set<Character> = ["a", "d", "p", "P", "A", "t", "c", "D", "v", "L", "H", "S", "E", "r"]
    /// Words that would give away the verdict, the deciding step or the attacker's loot before the vote.
    static let spoilers =
        TraceStep.Check.allCases.map(\.rawValue) + [
            "accepted", "rejected", "refused", "refuses", "passes", "fails", "FAIL", "TRUSTED", "leak", "hunter2",
            "In the trace", "In the events", "Try:",
        ]

    @Test func everyLessonOfTheCatalogIsChecked() {
        #expect(Self.lessons.map(\.id) == CatalogTests.catalog)
    }

    func lesson(_ id: String) throws -> Scenario { try #require(Self.lessons.first { $0.id == id }) }

    @Test(arguments: CatalogTests.catalog)
    func theStoryEndsWithTheQuestionAndGivesNothingAway(_ id: String) throws {
        let lesson = try lesson(id)
        let story = lesson.lesson.story.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(story.hasSuffix("?"), "\(lesson.id): the story must end with the question the class answers")
        for word in Self.spoilers {
            #expect(!story.contains(word), "\(lesson.id): the story says '\(word)' before the vote")
        }
    }

    @Test(arguments: CatalogTests.catalog)
    func theRevealEndsWithATryLineThatNamesAKey(_ id: String) throws {
        let lesson = try lesson(id)
        let last = try #require(lesson.lesson.reveal.trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: "\n\n").last)
        let key = last.hasPrefix("Try: press `") ? last.dropFirst("Try: press `".count).first : nil
        #expect(key.map(Self.editKeys.contains) == true, "\(lesson.id): '\(last)' does not start with 'Try: press `KEY`'")
    }

    @Test(arguments: CatalogTests.catalog)
    func theTextNeverPointsAtADocumentTheLearnerDoesNotHave(_ id: String) throws {
        let lesson = try lesson(id)
        for phrase in ["the reference", "gap G"] {
            #expect(!lesson.lesson.text.contains(phrase), "\(lesson.id): '\(phrase)'")
        }
    }
}
