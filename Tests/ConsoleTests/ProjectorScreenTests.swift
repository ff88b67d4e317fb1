import Foundation
import Simulation
import Testing

@testable import Console

/// The projector (80×24) and 120×40: every sentence wraps, every pane that cannot show all of it scrolls
/// (Tab chooses which), Enter opens an event or a trace step whole, and nothing is drawn over anything else.
struct ProjectorScreenTests {
    static let projector = Size(columns: 80, rows: 24)
    static let wide = Size(columns: 120, rows: 40)

    /// `state` with `keys` pressed, each edit re-run for real, and the viewport `update` scrolls by.
    static func pressed(_ keys: [Key], _ state: ConsoleState, size: Size = projector) -> ConsoleState {
        var state = state
        state.viewport = size
        ConsoleUpdateTests.press(keys, &state)
        return state
    }

    /// The lesson pane's lines as a reader gets them: Tab to the pane, then ↓ until the last line, keeping
    /// each line once, in order (the pane's rule says which lines it shows: "lines 3–7 of 15"). The screen is read
    /// after as many ↓ as the pane has lines, each ↓ a line further: a line ↓ skipped or never reached is missing.
    static func readLessonPane(_ initial: ConsoleState, size: Size = projector) throws -> [String] {
        var state = pressed([.tab, .tab], initial, size: size)
        #expect(state.focus == .lesson)
        var read: [Int: String] = [:]
        for _ in 0..<200 {
            let lines = render(state, size: size).text.components(separatedBy: "\n")
            let rule = try #require(lines.firstIndex { $0.hasPrefix("── ▶ lesson") }, "\(lines.joined(separator: "\n"))")
            let numbers = lines[rule].split { !$0.isNumber }.compactMap { Int($0) }
            // Without numbers the pane shows every line: as many as the lesson's text has.
            let all = numbers.count == 3 ? numbers[2] : paneLines(state, width: size.columns).count
            let (first, last, total) = numbers.count == 3 ? (numbers[0], numbers[1], numbers[2]) : (1, all, all)
            for (offset, line) in lines[(rule + 1)...(rule + 1 + last - first)].enumerated() { read[first + offset] = line }
            if last == total { return read.keys.sorted().map { read[$0] ?? "" } }
            state = pressed(Array(repeating: .down, count: last - first + 1), state, size: size)
        }
        Issue.record("the lesson pane never reached its last line")
        return []
    }

    /// The lesson pane's whole text at `width`, as drawn: each line from column 1.
    static func paneLines(_ state: ConsoleState, width: Int) -> [String] {
        let stale = state.departure == nil ? [] : Canvas.wrap(LessonDeparture.staleLessonText, width: width - 2)
        let text = Canvas.markdownLines(state.lessonText, width: width - 2).map { String($0.map(\.character)) }
        return (stale + text).map { line in
            var line = " " + line
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// Screens recorded after keys: edits (no overdraw), the lesson scrolled to its end, the trace with the
    /// focus, the READ event opened whole. The name says the lesson, the keys and the size.
    static let recorded: [(id: String, keys: [Key], name: String, size: Size)] = [
        ("02-forged-untrusted-ca", [.character("a"), .character("d")], "after-a-d", projector),
        ("02-forged-untrusted-ca", [.character("a"), .character("d")], "after-a-d", wide),
        ("05-expired-server-certificate", [.character("a"), .character("d")], "after-a-d", projector),
        ("06-valid-certificate-wrong-host", [.character("D")], "after-D", projector),
        ("02-forged-untrusted-ca", [.tab, .tab, .end], "lesson-end", projector),
        ("02-forged-untrusted-ca", [.tab, .tab, .end], "lesson-end", wide),
        ("03-installed-attacker-ca", [.tab], "trace-focus", projector),
        ("03-installed-attacker-ca", [.character("j")] + Array(repeating: .right, count: 5) + [.enter], "read-event-opened", projector),
    ]

    @Test(arguments: recorded.indices)
    func theScreenAfterKeysReadsAsRecorded(_ index: Int) throws {
        let (id, keys, name, size) = Self.recorded[index]
        let state = Self.pressed(keys, ConsoleRenderTests.walkthrough(id), size: size)
        try ConsoleRenderTests.expectGolden(render(state, size: size), "\(id)-\(name)-\(size.columns)x\(size.rows)")
    }

    @Test(arguments: ConsoleRenderTests.catalog.map(\.id))
    func everyLineOfStoryAndRevealIsReachableOnTheProjector(_ id: String) throws {
        let state = ConsoleRenderTests.walkthrough(id)
        let scenario = try #require(state.scenario)
        let read = try Self.readLessonPane(state)
        #expect(read == Self.paneLines(state, width: 80), "\(id)")
        #expect(
            Screen.shows(
                Screen.words(MarkdownStyle.plainText(scenario.revealText)).split(separator: " ").suffix(6).joined(separator: " "), read.joined(separator: "\n")),
            "the reveal's last words, its tries included")
    }

    /// The console keeps what it wrapped (a screen wraps the same sentences on every key) by text, width and indent:
    /// the same text at another width, or with another indent, is wrapped anew.
    @Test func theSameTextIsWrappedAnewAtAnotherWidthOrIndent() {
        let text = "one two three four five six seven eight nine ten"
        #expect(Canvas.wrap(text, width: 20) == ["one two three four", "five six seven eight", "nine ten"])
        #expect(Canvas.wrap(text, width: 10) == ["one two", "three four", "five six", "seven", "eight nine", "ten"])
        #expect(Canvas.wrap(text, width: 20, hanging: 2) == ["one two three four", "  five six seven", "  eight nine ten"])
        let markdown = "**one** two three four five six"
        #expect(Canvas.markdownLines(markdown, width: 20).map { String($0.map(\.character)) } == ["one two three four", "five six"])
        #expect(Canvas.markdownLines(markdown, width: 10).map { String($0.map(\.character)) } == ["one two", "three four", "five six"])
    }

    @Test func lesson8TellsItsWholeStoryBeforeTheVoteOnTheProjector() throws {
        let state = ClassroomTests.question("08-allow-invalid-no-domain-check")
        let story = try #require(state.scenario?.lesson.story)
        let read = try Self.readLessonPane(state).joined(separator: "\n")
        #expect(Screen.words(read) == Screen.words(MarkdownStyle.plainText(story)))
    }

    @Test func afterAnEditTheLessonsExplanationIsNotShownAndRReturnsToIt() throws {
        let edited = Self.pressed([.character("a")], ConsoleRenderTests.walkthrough("02-forged-untrusted-ca"))
        let lesson = try #require(edited.lesson?.lesson)
        for size in [Self.projector, Self.wide] {
            let read = try Self.readLessonPane(edited, size: size).joined(separator: "\n")
            #expect(Screen.shows(LessonDeparture.staleLessonText, read))
            #expect(Screen.shows(MarkdownStyle.plainText(lesson.story), read))
            #expect(!Screen.shows("In the trace, chainTrust FAILS", read), "the reveal contradicts the edited run")
            #expect(!Screen.shows("In the trace, chainTrust FAILS", render(edited, size: size).text))
        }
        let reset = Self.pressed([.character("r")], edited)
        #expect(Screen.shows("In the trace, chainTrust FAILS", try Self.readLessonPane(reset).joined(separator: "\n")))
    }

    @Test func enterOpensEachTraceStepWholeOnTheProjector() throws {
        var state = Self.pressed([.tab, .home], ConsoleRenderTests.walkthrough("02-forged-untrusted-ca"))
        let steps = try #require(state.report?.evaluation?.steps)
        for (index, step) in steps.enumerated() {
            #expect(state.traceCursor == index)
            let opened = Self.pressed([.enter], state)
            #expect(opened.opened == .traceStep(index))
            #expect(Screen.shows(step.description, render(opened, size: Self.projector).text), "\(step)")
            state = Self.pressed([.enter, .down], opened)
        }
    }

    @Test func enterOpensTheCurrentEventWholeAndTheReadEventShowsThePasswordAt120x40() throws {
        let state = ConsoleRenderTests.walkthrough("03-installed-attacker-ca")
        let events = try #require(state.report?.events)
        let read = try #require(events.firstIndex { $0.actor == .proxy && $0.text.contains("password=hunter2") })
        var stepped = state
        for step in (read - 2)...read {
            stepped.step = step
            #expect(Screen.showsInDiagram(events[read].text, render(stepped, size: Self.wide).text), "the READ event, whole, from step \(step)")
        }
        let opened = Self.pressed([.enter], stepped)
        #expect(opened.opened == .event(read))
        #expect(Screen.shows(events[read].text, render(opened, size: Self.projector).text))
        #expect(Self.pressed([.character("q")], opened).opened == nil)
    }

    @Test func theComparisonsTraceWrapsAndScrolls() throws {
        var state = Self.pressed([.character("C"), .enter], ConsoleRenderTests.walkthrough("02-forged-untrusted-ca"))
        let row = try #require(state.comparison?.rows.first)
        var seen = ""
        for _ in 0..<40 {
            seen += render(state, size: Self.projector).text + "\n"
            state = Self.pressed([.pageDown], state)
        }
        for step in row.report.evaluation?.steps ?? [] {
            #expect(Screen.shows(step.description, seen), "\(step)")
        }
    }

    @Test func theInspectorScrollsToLesson21sAppendedBankLeaf() throws {
        let state = Self.pressed([.character("i"), .end], ConsoleRenderTests.walkthrough("21-appended-pinned-certificate"))
        let report = try #require(state.report)
        let appended = try #require(report.certificateComparison.last?.first { $0.name == "label" }?.shown)
        #expect(appended == "bank-leaf")
        let lines = render(state, size: Self.projector).text.components(separatedBy: "\n")
        #expect(lines.contains("≠ label    bank-leaf"), "\(lines.joined(separator: "\n"))")
        // The appended certificate's own digest: on the last page, not the first.
        // (the real server sends the same bank-leaf: the right-hand column shows it from the first page).
        let digest = try #require(report.certificateComparison.last?.first { $0.name == "SHA-256" }?.shown?.prefix(16))
        func leftColumn(_ state: ConsoleState) -> String {
            render(state, size: Self.projector).text.components(separatedBy: "\n").map { String($0.prefix(40)) }.joined(separator: "\n")
        }
        #expect(leftColumn(state).contains(digest))
        #expect(!leftColumn(Self.pressed([.home], state)).contains(digest))
    }

    @Test(arguments: [("02-forged-untrusted-ca", "ad"), ("05-expired-server-certificate", "ad"), ("06-valid-certificate-wrong-host", "D")])
    func editsOnTheProjectorLeaveEveryPaneItsRule(_ id: String, _ keys: String) throws {
        let state = LessonKeyTests.after(keys, in: id)
        let lines = render(state, size: Self.projector).text.components(separatedBy: "\n")
        let trace = try #require(lines.firstIndex { $0.hasPrefix("── the app's trace") })
        let lesson = try #require(lines.firstIndex { $0.hasPrefix("── lesson, as written") }, "\(lines.joined(separator: "\n"))")
        #expect(trace < lesson)
        #expect(lines[lesson].hasPrefix("── lesson, as written ─"), "the rule names the pane; the pane says how to get the lesson back")
        #expect(Screen.shows(LessonDeparture.staleLessonText, try Self.readLessonPane(state).joined(separator: " ")))
        #expect(Screen.showsVerdict(try #require(state.report?.verdict), lines.joined(separator: "\n")))
        #expect(Screen.shows(try #require(state.departure).summary, lines.joined(separator: "\n")))
    }

    @Test func aRefusalAndALeakNeverShareAnInk() {
        for palette in [Palette.normal, .highContrast, .attributesOnly] {
            #expect(palette.ink(.rejected) != palette.ink(.leaked), "\(palette)")
            #expect(palette.ink(.accepted) != palette.ink(.leaked), "\(palette)")
        }
    }

    @Test func theHelpScrollsToItsLastKeyOnTheProjector() {
        var state = ConsoleState(catalog: ConsoleRenderTests.catalog)
        state.viewport = Self.projector
        ConsoleUpdateTests.press([.character("?")], &state)
        #expect(!render(state, size: Self.projector).text.contains("back, or quit from the lesson list"))
        ConsoleUpdateTests.press([.end], &state)
        let text = render(state, size: Self.projector).text
        #expect(text.contains("back, or quit from the lesson list"))
    }

    /// Every focus, in and out of classroom mode (where "y/n answer" joins the hint), ends the screen with
    /// the whole hint: it fits the 79 columns after the footer's margin, so nothing is cut.
    @Test func theLessonScreenEndsWithAOneLineKeyHint() throws {
        let states = [ConsoleRenderTests.walkthrough("02-forged-untrusted-ca"), ClassroomTests.question("02-forged-untrusted-ca")]
        for state in states {
            for (keys, moves) in [([Key](), "step"), ([.tab], "trace"), ([.tab, .tab], "scroll the lesson")] {
                let pressed = Self.pressed(keys, state)
                let hint = Canvas.keyHint(pressed)
                #expect(hint.count <= 79, "\(hint)")
                let lines = render(pressed, size: Self.projector).text.components(separatedBy: "\n")
                #expect(lines.last == " " + hint)
                #expect(hint.hasPrefix("Tab focus  ↑↓ PgUp PgDn \(moves)"), "\(hint)")
                #expect(hint.hasSuffix("? keys  q lessons"))
                #expect(hint.contains("y/n answer") == pressed.awaitingPrediction)
            }
        }
    }
}

/// The lesson list: a filter's Enter opens its first match, PgDn and PgUp move a page.
struct LessonListTests {
    @Test func slashThenEnterOpensTheFirstMatchWhereverTheCursorWas() throws {
        var state = ConsoleState(catalog: ConsoleRenderTests.catalog)
        ConsoleUpdateTests.press([.down], &state)
        #expect(state.filtered[state.selection].id.hasPrefix("02-"))
        ConsoleUpdateTests.press([.character("/"), .character("1"), .character("2")], &state)
        #expect(update(&state, .enter) == .run)
        #expect(state.scenario?.id == state.filtered.first?.id)
        #expect(state.scenario?.id.hasPrefix("12-") == true)
    }

    @Test func theSelectedLessonIsAlwaysOnScreenGroupNamesIncluded() {
        var state = ConsoleState(catalog: ConsoleRenderTests.catalog)
        for index in state.catalog.indices {
            state.selection = index
            let text = render(state, size: Size(columns: 80, rows: 24)).text
            #expect(text.contains("> \(state.catalog[index].id.prefix(40))"), "\(state.catalog[index].id)")
        }
    }

    @Test func pageDownAndPageUpMoveAPage() {
        var state = ConsoleState(catalog: ConsoleRenderTests.catalog)
        state.viewport = Size(columns: 80, rows: 24)
        ConsoleUpdateTests.press([.pageDown], &state)
        #expect(state.selection > 10)
        ConsoleUpdateTests.press([.pageDown, .pageDown, .pageDown, .pageDown], &state)
        #expect(state.selection == state.catalog.count - 1)
        ConsoleUpdateTests.press([.pageUp], &state)
        #expect(state.selection < state.catalog.count - 10)
    }
}
