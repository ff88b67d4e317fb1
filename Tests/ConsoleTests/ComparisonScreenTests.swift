import Console
import Policies
import Simulation
import Testing

/// The comparison screen: the same attack, every client, one row each; a row opens that client's trace.
struct ComparisonScreenTests {
    static let size = Size(columns: 80, rows: 24)

    /// Lesson 38's walkthrough with its comparison over three releases already computed (the app computes
    /// every model's; these tests drive the screen, not the peers).
    static func comparing() throws -> ConsoleState {
        var state = ConsoleRenderTests.walkthrough("38-afnetworking-2-5-1-accepts-self-signed")
        let scenario = try #require(state.scenario)
        state.comparison = try Comparison(scenario: scenario, clients: [.afnetworking(.v4), .afnetworking(.v2_5_1), .afnetworking(.v2_0)])
        return state
    }

    @Test("C opens the comparison and asks for it to be computed when there is none")
    func cAsksForTheComparison() {
        var state = ConsoleRenderTests.walkthrough("02-forged-untrusted-ca")
        #expect(update(&state, .character("C")) == .computeComparison)
        #expect(state.screen == .comparison)
    }

    @Test("C keeps a comparison already computed, and any edit throws it away")
    func anEditDiscardsTheComparison() throws {
        var state = try Self.comparing()
        #expect(update(&state, .character("C")) == nil)
        #expect(state.comparison != nil)
        _ = update(&state, .character("q"))
        #expect(update(&state, .character("a")) == .run)
        #expect(state.comparison == nil)
    }

    @Test("In classroom mode C waits until the class has answered, and says why")
    func classroomWaits() {
        var state = ConsoleState(catalog: ConsoleRenderTests.catalog, classroom: true)
        state.scenario = ConsoleRenderTests.catalog.first { $0.id == "02-forged-untrusted-ca" }
        ConsoleApp.perform(.run, on: &state)
        #expect(update(&state, .character("C")) == nil)
        #expect(state.screen == .walkthrough)
        #expect(state.note == "the comparison shows the answer: first answer the question (y or n)")
    }

    @Test("The screen shows one row per client with its verdict, deciding step and what the attacker read, and the selected one in full")
    func rowsOnScreen() throws {
        var state = try Self.comparing()
        state.screen = .comparison
        let screen = render(state, size: Self.size).text
        let lines = screen.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("client verdict deciding step attacker read"))
        #expect(lines.contains("afnetworking-4 REJECTED chainTrust nothing"))
        #expect(lines.contains("afnetworking-2.5.1 ACCEPTED modeNoneWithoutEvaluation password 'hunter2'"))
        #expect(lines.contains("afnetworking-2.0 REJECTED chainTrust nothing"))
        #expect(screen.contains("afnetworking-4: REJECTED at chainTrust."), "the selected client's whole verdict, under the table")
    }

    @Test("j and k choose a client, Enter opens its trace, q closes the trace and then the screen")
    func selectingATrace() throws {
        var state = try Self.comparing()
        state.screen = .comparison
        for key in [Key.character("j"), .character("j"), .character("j"), .character("k")] { _ = update(&state, key) }
        #expect(state.comparisonCursor == 1)
        _ = update(&state, .enter)
        #expect(state.showsComparisonTrace)
        let screen = render(state, size: Self.size).text
        #expect(screen.contains("trace of afnetworking-2.5.1"))
        #expect(screen.contains("[pass] modeNoneWithoutEvaluation"))
        #expect(!screen.contains("afnetworking-2.0 "))
        _ = update(&state, .character("q"))
        #expect(!state.showsComparisonTrace && state.screen == .comparison)
        _ = update(&state, .character("q"))
        #expect(state.screen == .walkthrough)
    }

    @Test("A comparison that could not run says why instead of a table")
    func failureIsShown() {
        var state = ConsoleRenderTests.walkthrough("02-forged-untrusted-ca")
        state.screen = .comparison
        state.comparisonFailure = "could not compare the clients for 02-forged-untrusted-ca: the reason"
        #expect(render(state, size: Self.size).text.contains("could not compare the clients for 02-forged-untrusted-ca: the reason"))
    }
}
