import Console
import Foundation
import Simulation
import Testing

/// Every variable of a lesson is a key: each re-runs the lesson for real, and the screen then says
/// what differs from the lesson as written and what decides now.
struct LessonKeyTests {
    static let size = Size(columns: 80, rows: 24)

    static func after(_ keys: String, in id: String) -> ConsoleState {
        var state = ConsoleRenderTests.walkthrough(id)
        ConsoleUpdateTests.press(ConsoleUpdateTests.characters(keys), &state)
        return state
    }

    @Test func afterAnEditTheScreenSaysWhatDiffersFromTheLessonAndWhatDecidesNow() throws {
        let state = Self.after("a", in: "02-forged-untrusted-ca")
        let text = render(state, size: Size(columns: 120, rows: 40)).text
        #expect(Screen.shows("changed from the lesson: allowInvalidCertificates NO → YES", text))
        #expect(Screen.shows(LessonDeparture.staleLessonText, text))
        let deciding = try #require(state.report?.evaluation?.decidingStep)
        #expect(deciding.check == .domainGuard)
        #expect(Screen.shows("Now: \(deciding)", text), "the engine's own sentence for the new deciding step")
    }

    @Test func installingTheAttackersCATurnsLesson2IntoLesson3ThenFullTrustOffRejectsItThenItIsRemoved() throws {
        var state = Self.after("t", in: "02-forged-untrusted-ca")
        #expect(state.report?.verdict == "ACCEPTED at chainTrust")
        #expect(state.report?.attackerView.readSecret == true)
        #expect(state.departure?.changes == ["device trust for 'attacker-ca' none → installed and fully trusted"])
        ConsoleUpdateTests.press([.character("t")], &state)
        #expect(state.report?.verdict == "REJECTED at chainTrust")
        #expect(state.report?.attackerView.readSecret == false)
        #expect(
            state.change
                == "device trust for 'attacker-ca' installed and fully trusted → installed without full trust: REJECTED at chainTrust (was ACCEPTED at chainTrust)"
        )
        let reason = try #require(state.report?.evaluation?.rejection)
        #expect(reason.code == "installedWithoutFullTrust", "\(reason)")
        ConsoleUpdateTests.press([.character("t")], &state)
        #expect(state.report?.verdict == "REJECTED at chainTrust")
        #expect(state.departure == nil)
    }

    @Test func aWorldWithoutAnAttackersCASaysSoAndChangesNothing() {
        let state = Self.after("t", in: "01-no-attacker")
        #expect(state.change?.hasPrefix("device trust store unchanged: this world has no attacker's CA to install") == true)
        #expect(state.departure == nil)
    }

    @Test func theClockMovesToADayAfterTheLeafExpiresAndBack() throws {
        var state = Self.after("c", in: "01-no-attacker")
        let lesson = try #require(state.lesson)
        // bank-leaf gives no dates, so it expires a year after the lesson's clock, as World builds it.
        #expect(state.scenario?.clock == lesson.clock.addingTimeInterval(366 * 86_400))
        #expect(state.report?.verdict == "REJECTED at chainTrust")
        #expect(state.report?.evaluation?.decidingStep?.detail.contains("expired") == true)
        #expect(state.change?.contains("a day after 'bank-leaf' expires") == true)
        ConsoleUpdateTests.press([.character("c")], &state)
        #expect(state.scenario?.clock == lesson.clock)
        #expect(state.report?.verdict == "ACCEPTED at chainTrust")
        #expect(state.departure == nil)
    }

    @Test func aNilDomainInLesson6PassesThePolicyButNotATSWhichLesson7Exempts() {
        let state = Self.after("D", in: "06-valid-certificate-wrong-host")
        let seven = ConsoleRenderTests.walkthrough("07-nil-domain-no-host-check")
        #expect(state.scenario?.client.passesDomain == false)
        #expect(state.report?.evaluation?.steps.contains { $0.check == .chainTrust && $0.outcome == .passed } == true)
        #expect(state.report?.verdict == "REJECTED at atsServerTrust")
        #expect(seven.report?.verdict == "ACCEPTED at chainTrust")
        #expect(state.departure?.changes == ["domain 'bank.test' → nil"])
    }

    @Test func theTLSVersionsCycleAndTheServerHelloFollows() {
        var state = ConsoleRenderTests.walkthrough("01-no-attacker")
        for expected in ["TLS 1.2", "TLS 1.3"] {
            ConsoleUpdateTests.press([.character("v")], &state)
            let hello = state.report?.events.compactMap { event -> String? in
                if case .handshake(.serverHello(let version, _)) = event.kind { version } else { nil }
            }
            #expect(hello == [expected])
        }
        #expect(state.departure?.changes == ["server TLS versions any → 1.3 only"])
        ConsoleUpdateTests.press([.character("v")], &state)
        #expect(state.departure == nil)
    }

    @Test func resetPutsBackTheLessonAsWritten() {
        var state = Self.after("tapA", in: "02-forged-untrusted-ca")
        #expect(state.departure?.changes.count == 4)
        ConsoleUpdateTests.press([.character("r")], &state)
        #expect(state.departure == nil)
        #expect(state.report?.verdict == "REJECTED at chainTrust")
        #expect(state.change?.hasPrefix("reset to the lesson as written: REJECTED at chainTrust") == true)
        #expect(!Screen.shows(LessonDeparture.staleLessonText, render(state, size: Self.size).text))
    }
}

/// At 80×24, the projector's size: the verdict and the whole sentence of the step that decided it are on
/// screen for every lesson, in classroom mode once the class has answered too, and, when the app connected, the
/// current event's whole label and, beside it, at least one other event (each counted by its ● or its arrow), so the room
/// sees the step in its sequence. Two, not three: in lessons 35, 38 and 44 the labels wrap to several rows
/// at 80 columns and the diagram's five rows hold two of them. Events, not rows: one long label could fill
/// five rows alone.
struct ProjectorSizeTests {
    static let size = Size(columns: 80, rows: 24)
    @Test(arguments: ConsoleRenderTests.catalog.map(\.id))
    func theVerdictAndTheReasonForItFitOnTheProjector(_ id: String) throws {
        var classroom = ClassroomTests.question(id)
        ConsoleUpdateTests.press([.character("y")], &classroom)
        for state in [ConsoleRenderTests.walkthrough(id), classroom] {
            let report = try #require(state.report)
            let lines = render(state, size: Self.size).text.components(separatedBy: "\n")
            #expect(Screen.showsVerdict(report.verdict, lines.joined(separator: "\n")), "\(lines)")
            if let deciding = report.evaluation?.decidingStep {
                #expect(Screen.shows(deciding.description, lines.joined(separator: "\n")), "\(id): \(deciding)")
            }
            let titles = try #require(lines.firstIndex { $0.hasPrefix("client ") })
            // Without a trace rule (its deciding step is shown whole below), the diagram runs down to the bottom lines.
            let trace = lines.firstIndex { $0.hasPrefix("── the app's trace") } ?? lines.count - 1
            let drawn = lines[(titles + 1)..<trace].filter { $0.contains { "●▶◀".contains($0) } }.count
            #expect(drawn >= min(2, report.events.count), "\(id) draws \(drawn) events")
            // An http:// load ATS refuses opens no connection (lesson 54): there is no event to show.
            guard !report.events.isEmpty else { continue }
            let current = try #require(report.events.indices.contains(state.step) ? report.events[state.step] : nil)
            #expect(Screen.showsInDiagram(current.text, lines.joined(separator: "\n")), "\(id): the current event whole")
        }
    }
}
