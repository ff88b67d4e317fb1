import Console
import Foundation
import Simulation
import TestSupport
import Testing

/// Classroom mode: until the class answers, nothing on screen gives away the verdict, the deciding step
/// or what the attacker read. Each test walks one way the answer used to leak.
struct ClassroomTests {
    static let size = Size(columns: 80, rows: 24)

    /// A classroom walkthrough of `id`, run for real, with the question open.
    static func question(_ id: String) -> ConsoleState { questions[id] }

    /// Each lesson's question, run once per test process: several suites read every lesson's.
    private static let questions = Memo { (id: String) in
        var state = ConsoleState(catalog: ConsoleRenderTests.catalog, classroom: true)
        state.scenario = ConsoleRenderTests.catalog.first { $0.id == id }
        ConsoleApp.perform(.run, on: &state)
        return state
    }

    /// What would give the answer away: the verdict words and the deciding step's sentence.
    static func expectNothingGivesTheAnswerAway(_ state: ConsoleState, size: Size = size, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = render(state, size: size).text
        #expect(state.awaitingPrediction, sourceLocation: sourceLocation)
        #expect(text.contains("Will the client accept this chain? (y/n)"), sourceLocation: sourceLocation)
        for giveaway in ["ACCEPTED", "REJECTED", "TRUSTED", "decided at"] {
            #expect(!text.contains(giveaway), "'\(giveaway)' is on screen:\n\(text)", sourceLocation: sourceLocation)
        }
        if let deciding = state.report?.evaluation?.decidingStep {
            #expect(!Screen.shows(deciding.detail, text), sourceLocation: sourceLocation)
        }
    }

    @Test func theLessonListKeepsEachLessonsOutcomeToItself() {
        let wide = Size(columns: 120, rows: 40)
        let lesson = ConsoleRenderTests.catalog[1]
        var ordinary = ConsoleState(catalog: ConsoleRenderTests.catalog)
        ordinary.selection = 1
        #expect(render(ordinary, size: wide).text.contains(lesson.summary))
        var classroom = ConsoleState(catalog: ConsoleRenderTests.catalog, classroom: true)
        classroom.selection = 1
        #expect(!render(classroom, size: wide).text.contains(lesson.summary))
        // Summaries say "rejected"; titles no longer do, so a classroom filter on the word finds nothing.
        ordinary.filter = "rejected"
        classroom.filter = "rejected"
        #expect(!ordinary.filtered.isEmpty)
        #expect(classroom.filtered.isEmpty)
    }

    /// A scenario file may have an id without a number: classroom mode names it by its place in the list,
    /// so two such lessons are not both "lesson ".
    @Test func lessonsWhoseIdsHaveNoNumberAreNamedByTheirPlaceInTheList() {
        var catalog = Array(ConsoleRenderTests.catalog.prefix(3))
        catalog[1].id = "forged-untrusted-ca"
        catalog[2].id = "installed-attacker-ca"
        let classroom = ConsoleState(catalog: catalog, classroom: true)
        let names = catalog.map(classroom.name)
        #expect(names[1] == "lesson 2")
        #expect(names[2] == "lesson 3")
        #expect(Set(names).count == catalog.count, "\(names)")
        let text = render(classroom, size: Self.size).text
        #expect(text.contains("lesson 2") && text.contains("lesson 3"))
    }

    @Test func afterAPolicyKeyTheChangeLineWaitsForTheAnswerBeforeSayingTheVerdict() {
        var state = Self.question("13-public-key-pin-vs-installed-ca")
        ConsoleUpdateTests.press([.character("p")], &state)
        #expect(state.change?.contains("REJECTED at pinnedAnchors") == true)
        Self.expectNothingGivesTheAnswerAway(state)
        #expect(render(state, size: Self.size).text.contains("pinning mode publicKey → certificate"))
        ConsoleUpdateTests.press([.character("P")], &state)
        #expect(!render(state, size: Self.size).text.contains("REJECTED"), "the pin list shows the change line too")
    }

    @Test func jumpingToTheDecisionStopsThereWithoutShowingIt() {
        var state = Self.question("03-installed-attacker-ca")
        ConsoleUpdateTests.press([.character("j")], &state)
        #expect(state.step == state.decidingStep)
        Self.expectNothingGivesTheAnswerAway(state)
        #expect(render(state, size: Self.size).text.contains("the client judges the chain: hidden until the class answers"))
    }

    @Test func theWalkStopsAtTheDecisionAndShowsNothingAfterIt() throws {
        var state = Self.question("03-installed-attacker-ca")
        ConsoleUpdateTests.press([.end, .pageDown, .right], &state)
        #expect(state.step == state.decidingStep)
        Self.expectNothingGivesTheAnswerAway(state, size: Size(columns: 120, rows: 40))
        let text = render(state, size: Size(columns: 120, rows: 40)).text
        #expect(!text.contains("READ"), "the proxy reading the login comes after the decision")
        #expect(!text.contains("hunter2"))
    }

    @Test func theStoryIsShownBeforeTheAnswerAndTheRevealAfter() throws {
        var state = Self.question("02-forged-untrusted-ca")
        let scenario = try #require(state.scenario)
        let big = Size(columns: 120, rows: 40)
        #expect(Screen.shows(MarkdownStyle.plainText(scenario.lesson.story), render(state, size: big).text))
        #expect(!Screen.shows(MarkdownStyle.plainText(scenario.lesson.reveal), render(state, size: big).text))
        #expect(!render(state, size: big).text.contains("Try:"))
        ConsoleUpdateTests.press([.character("n")], &state)
        #expect(Screen.shows(MarkdownStyle.plainText(scenario.revealText), render(state, size: big).text))
    }

    @Test func theAttackerViewAndTheMatrixWaitForTheAnswer() {
        var state = Self.question("03-installed-attacker-ca")
        for key in ["x", "m"] {
            #expect(update(&state, .character(Character(key))) == nil)
            #expect(state.screen == .walkthrough)
            #expect(render(state, size: Self.size).text.contains("first answer the question (y or n)"))
            Self.expectNothingGivesTheAnswerAway(state)
        }
        ConsoleUpdateTests.press([.character("y"), .character("x")], &state)
        #expect(state.screen == .attacker)
        #expect(render(state, size: Self.size).text.contains("password=hunter2"))
    }

    @Test func outsideClassroomModeTheStoryAndTheRevealAreBothShown() throws {
        let state = ConsoleRenderTests.walkthrough("02-forged-untrusted-ca")
        let scenario = try #require(state.scenario)
        let text = render(state, size: Size(columns: 120, rows: 40)).text
        #expect(Screen.shows(MarkdownStyle.plainText(scenario.lesson.story), text))
        #expect(Screen.shows(MarkdownStyle.plainText(scenario.revealText), text))
    }

    @Test(arguments: ConsoleRenderTests.catalog.map(\.id))
    func beforeTheVoteNeitherTheIdNorTheStepTotalIsShown(_ id: String) throws {
        var state = Self.question(id)
        let number = String(id.prefix { $0.isNumber })
        for size in [Self.size, Size(columns: 120, rows: 40)] {
            let text = render(state, size: size).text
            #expect(!text.contains(id), "\(id) at \(size.columns)×\(size.rows)")
            #expect(text.hasPrefix(" mitmsim  lesson \(number): "))
            let rule = try #require(text.components(separatedBy: "\n").first { $0.hasPrefix("── the app's trace") })
            #expect(rule.contains(" step 1 ─") && !rule.contains(" of "), "\(rule)")
        }
        state.screen = .picker
        state.selection = try #require(state.catalog.firstIndex { $0.id == id })
        let list = render(state, size: Size(columns: 120, rows: 40)).text
        #expect(!list.contains(id) && list.contains("> lesson \(number)  "), "\(list)")
    }

    @Test func theScoreNeverOverwritesTheTitle() throws {
        let state = Self.question("12-certificate-pin-vs-installed-ca")
        let scenario = try #require(state.scenario)
        let title = try #require(render(state, size: Self.size).text.components(separatedBy: "\n").first)
        #expect(title.hasSuffix(" classroom  score 0/0"))
        let shown = try #require(title.components(separatedBy: "…").first)
        #expect(" mitmsim  lesson 12: \(scenario.title)".hasPrefix(shown) && shown.count > 40, "\(title)")
    }
}

/// Reading a screen the way a person does: a sentence counts as shown even when it wraps over lines.
enum Screen {
    /// The screen's words in order, one space between them.
    static func words(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func shows(_ sentence: String, _ text: String) -> Bool { words(text).contains(words(sentence)) }

    /// Whether the diagram shows `label` whole, read across its lanes and arrows.
    static func showsInDiagram(_ label: String, _ text: String) -> Bool { shows(label, text.filter { !"│●─▶◀".contains($0) }) }

    /// Whether the walkthrough's verdict line, above the key hint at the bottom, starts with `verdict`.
    static func showsVerdict(_ verdict: String, _ text: String) -> Bool {
        let lines = text.components(separatedBy: "\n")
        return lines.last?.hasPrefix(" Tab focus") == true && lines.suffix(3).contains { $0.hasPrefix(" \(verdict)  ") }
    }
}
