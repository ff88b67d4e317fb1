import Foundation
import Policies
import Simulation
import TestSupport
import Testing

/// A class can vote on every lesson: the story sets the scene and asks, the reveal explains, and the lesson's
/// tries (data the engine words and `run` checks) invite a key to press.
struct LessonTextTests {
    static let lessons = Lessons.all
    /// Words that would give away the verdict, the deciding step or the attacker's loot before the vote.
    static let spoilers =
        [
            TraceStep.Check.afNetworkingChecks, TraceStep.Check.appleIOSChecks, TraceStep.Check.trustKitChecks, TraceStep.Check.curlChecks,
            TraceStep.Check.alamofireChecks, TraceStep.Check.okHttpChecks, TraceStep.Check.androidChecks,
        ].joined().map(\.rawValue) + [
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
    func everyTryIsDataAndItsNoteSaysWhereToLookNeverWhatHappens(_ id: String) throws {
        let lesson = try lesson(id)
        #expect(!lesson.lesson.reveal.contains("Try:"), "\(id): a hand-written Try line; write it in lesson.tries")
        #expect(!lesson.lesson.tries.isEmpty, "\(id) has no try")
        for note in lesson.lesson.tries.compactMap(\.note) {
            for word in ["ACCEPTED", "REJECTED", "accepted", "rejected", "refused", "refuses", "passes", "fails", "reads", "hunter2"] {
                #expect(!note.contains(word), "\(id): the note '\(note)' says what happens ('\(word)'); the try's verdict says that")
            }
        }
        // Every key the try names is pressed in its sentence, in the order typed.
        for lessonTry in lesson.lesson.tries {
            let sentence = lessonTry.sentence(for: lesson)
            var rest = Substring(sentence)
            for key in lessonTry.keys.split(separator: " ") {
                let found = try #require(rest.range(of: key, options: .caseInsensitive), "\(id): '\(key)' missing from '\(sentence)'")
                rest = rest[found.upperBound...]
            }
        }
    }

    @Test(arguments: CatalogTests.catalog)
    func theTextNeverPointsAtADocumentTheLearnerDoesNotHave(_ id: String) throws {
        let lesson = try lesson(id)
        for phrase in ["the reference", "gap G"] {
            #expect(!lesson.lessonText.contains(phrase), "\(lesson.id): '\(phrase)'")
        }
    }
}
