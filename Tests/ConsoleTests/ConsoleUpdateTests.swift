import Console
import Foundation
import Policies
import Simulation
import Testing

/// Keys in, state out: the console's behaviour without a terminal (runs are real).
struct ConsoleUpdateTests {
    /// Applies keys as the app would, doing each effect.
    static func press(_ keys: [Key], _ state: inout ConsoleState) {
        for key in keys {
            if let effect = update(&state, key), effect != .quit { ConsoleApp.perform(effect, on: &state) }
        }
    }

    static func characters(_ text: String) -> [Key] { text.map(Key.character) }

    /// Lesson 02's walkthrough with its matrix open (`m`), computed once for the tests that read that matrix.
    static let matrixOpen: ConsoleState = {
        var state = ConsoleRenderTests.walkthrough("02-forged-untrusted-ca")
        press([.character("m")], &state)
        return state
    }()

    @Test func openingALessonAndSwitchingToCertificatePinningFlipsTheVerdict() throws {
        var state = ConsoleState(catalog: ConsoleRenderTests.catalog)
        Self.press(Self.characters("/installed") + [.enter], &state)
        #expect(state.scenario?.id == "03-installed-attacker-ca")
        #expect(render(state, size: Size(columns: 80, rows: 24)).text.contains("ACCEPTED at chainTrust"))

        Self.press([.character("P")], &state)
        let pins = ["bank-leaf"].compactMap { id in state.scenario.map { AttackChoiceIndex.index(of: id, in: $0) } }.first!
        Self.press(Array(repeating: .down, count: pins) + [.character(" "), .character("q"), .character("p"), .character("p")], &state)

        #expect(state.scenario?.client.policy.pinningMode == .certificate)
        #expect(state.report?.verdict == "REJECTED at pinnedAnchors")
        let screen = render(state, size: Size(columns: 80, rows: 24)).text
        #expect(screen.contains("REJECTED at pinnedAnchors"))
        #expect(state.change == "pinning mode publicKey → certificate: REJECTED at pinnedAnchors (was REJECTED at pinnedPublicKeyMatch)")
        #expect(Screen.shows("changed from the lesson: pinning mode none → certificate, pinned nothing → 'bank-leaf'", screen))
    }

    @Test func jumpingToTheDecidingStepLandsOnTheClientsVerdict() {
        var state = ConsoleRenderTests.walkthrough("02-forged-untrusted-ca")
        Self.press([.home, .character("j")], &state)
        #expect(state.report?.events[state.step].actor == .client)
        #expect(state.step == state.decidingStep)
    }

    @Test func theAttackerViewShowsThePasswordOrOnlyCiphertext() {
        var leaked = ConsoleRenderTests.walkthrough("03-installed-attacker-ca")
        Self.press([.character("x")], &leaked)
        #expect(render(leaked, size: Size(columns: 80, rows: 24)).text.contains("password=hunter2"))

        var passthrough = ConsoleRenderTests.walkthrough("04-passthrough")
        Self.press([.character("x")], &passthrough)
        #expect(render(passthrough, size: Size(columns: 80, rows: 24)).text.contains("ciphertext only:"))
    }

    @Test func theAttackerViewEndsWithWhatTheBanksCTMonitorSawWhenTheForgeryWasLogged() throws {
        var logged = ConsoleRenderTests.walkthrough("59-compromised-public-ca-logs-its-forgery")
        let monitor = try #require(logged.report?.transparencyMonitor)
        Self.press([.character("x")], &logged)
        #expect(Screen.shows(monitor, render(logged, size: Size(columns: 80, rows: 24)).text))

        var unlogged = ConsoleRenderTests.walkthrough("03-installed-attacker-ca")
        Self.press([.character("x")], &unlogged)
        #expect(!render(unlogged, size: Size(columns: 80, rows: 24)).text.contains("CT monitor"))
    }

    @Test func theInspectorMarksWhatTheForgeryChanged() {
        var state = ConsoleRenderTests.walkthrough("03-installed-attacker-ca")
        Self.press([.character("i")], &state)
        let text = render(state, size: Size(columns: 120, rows: 40)).text
        #expect(text.contains("≠ issuer"))
        #expect(text.contains("  SAN      bank.test"), "the forged leaf copies the names")
    }

    @Test func theInspectorMarksADifferentKeyOfTheSameType() throws {
        var state = ConsoleRenderTests.walkthrough("03-installed-attacker-ca")
        let report = try #require(state.report)
        #expect(report.presentedChain[0].keyDescription == report.realChain[0].keyDescription, "a forged leaf: same algorithm, new key")
        let key = try #require(report.certificateComparison[0].first { $0.name == "key" })
        #expect(key.differs)
        #expect(key.shown != key.real)
        Self.press([.character("i")], &state)
        #expect(render(state, size: Size(columns: 80, rows: 24)).text.contains("≠ key"))

        let stolen = try #require(ConsoleRenderTests.walkthrough("22-stolen-key").report)
        #expect(stolen.certificateComparison[0].first { $0.name == "key" }?.differs == false, "the stolen key is the bank's own")
    }

    @Test func theSelectedMatrixCellSaysItsPolicyItsAttackAndWhatDecided() throws {
        var state = Self.matrixOpen
        Self.press([.right], &state)
        let matrix = try #require(state.matrix)
        let cell = try #require(matrix.cell(matrix.policies[0], .forgeUntrustedCA))
        #expect(cell.decidingCheck == .chainTrust)
        let text = render(state, size: Size(columns: 80, rows: 24)).text
        #expect(Screen.shows("policy: pinning mode none, allowInvalidCertificates NO, validatesDomainName YES, pinned nothing", text))
        #expect(Screen.shows("attack: forgeUntrustedCA (forge with 'matrix-attacker-ca')", text))
        #expect(Screen.shows("result: REJECTED at chainTrust", text))
        #expect(!Screen.shows("forg = forgeUntrustedCA", text), "the legend waits behind g, so the rows get the room")
        Self.press([.character("g")], &state)
        let legend = render(state, size: Size(columns: 80, rows: 24)).text
        #expect(Screen.shows("forg = forgeUntrustedCA", legend), "every abbreviation has its legend")
        #expect(Screen.shows("LEAK = LEAKED", legend))
    }

    @Test func theMatrixShowsMoreThanFiveOfItsRowsOnTheProjector() throws {
        let state = Self.matrixOpen
        let matrix = try #require(state.matrix)
        let lines = render(state, size: Size(columns: 80, rows: 24)).text.components(separatedBy: "\n")
        let shown = matrix.policies.map(\.shortLabel).filter { label in lines.contains { $0.hasPrefix(" \(label) ") } }
        #expect(matrix.policies.count > 40)
        #expect(shown.count > 12, "\(shown.count) of \(matrix.policies.count) rows:\n\(lines.joined(separator: "\n"))")
    }

    @Test func aMatrixIsComputedAgainAfterTheClockMovesAndNeverStagesItsCertificatesTwice() throws {
        var state = Self.matrixOpen
        let lessonClock = try #require(state.matrix).staged.clock
        Self.press([.character("q"), .character("c"), .character("m")], &state)
        let moved = try #require(state.matrix)
        #expect(moved.staged.clock != lessonClock, "the matrix now runs at the moved clock")
        Self.press([.enter, .character("c"), .character("m")], &state)
        let again = try #require(state.matrix)
        #expect(again.staged.clock == lessonClock)
        let ids = again.staged.world.authorities.map(\.id) + again.staged.world.leaves.map(\.id)
        #expect(ids.count == Set(ids).count, "\(ids)")
    }

    @Test func aMatrixCellLoadsItsPolicyIntoTheWalkthrough() {
        var state = Self.matrixOpen
        #expect(state.matrix != nil)
        // Row 1 is: pinning mode none, A=N, V=Y, pin the leaf.
        Self.press([.down, .enter], &state)
        #expect(state.screen == .walkthrough)
        #expect(state.scenario?.client.policy.pinnedCertificates == ["bank-leaf"])
        #expect(state.change?.hasPrefix("matrix cell: none A=N V=Y pin leaf, none") == true)
    }

    @Test func theCertificatePinnedToTheRootAgainstAMisissuedLeafLoadsWithTheCellsVerdict() throws {
        var state = Self.matrixOpen
        let matrix = try #require(state.matrix)
        let policy = Matrix.Policy(pinningMode: .certificate, allowInvalidCertificates: false, validatesDomainName: true, pinned: .root)
        let row = try #require(matrix.policies.firstIndex(of: policy))
        let column = try #require(matrix.columns.firstIndex(of: .misissued))
        let cell = try #require(matrix.cell(policy, .misissued))
        state.matrixCursor = (row, column)
        Self.press([.enter], &state)
        #expect(state.report?.trusted == cell.trusted)
        #expect(state.report?.attackerView.sawPlaintext == cell.attackerSawPlaintext)
        #expect(state.scenario?.attacker.summary == "misissued with 'matrix-public-ca'")
    }

    @Test func aMatrixThatCannotBeComputedSaysWhyInsteadOfRunningForever() {
        var state = ConsoleRenderTests.walkthrough("02-forged-untrusted-ca")
        state.scenario?.server.leaf = "no-such-leaf"
        Self.press([.character("m")], &state)
        #expect(state.matrix == nil)
        let text = render(state, size: Size(columns: 80, rows: 24)).text
        #expect(text.contains("could not compute the matrix"))
        #expect(text.contains("no-such-leaf"))
        #expect(!text.contains("Running every policy"))
    }

    @Test func classroomModeHidesTheVerdictUntilThePredictionAndKeepsScore() {
        var state = ConsoleState(catalog: ConsoleRenderTests.catalog, classroom: true)
        state.scenario = ConsoleRenderTests.catalog.first { $0.id == "02-forged-untrusted-ca" }
        ConsoleApp.perform(.run, on: &state)
        #expect(state.awaitingPrediction)
        #expect(render(state, size: Size(columns: 80, rows: 24)).text.contains("Will the client accept this chain? (y/n)"))
        #expect(!render(state, size: Size(columns: 80, rows: 24)).text.contains("REJECTED at chainTrust"))
        Self.press([.character("n")], &state)
        #expect(state.score.right == 1 && state.score.asked == 1)
        #expect(render(state, size: Size(columns: 80, rows: 24)).text.contains("REJECTED at chainTrust"))
    }

    @Test func pressingFPutsTheAttackerInsideTheAppsProcessAndTakesItOutAgain() throws {
        var state = ConsoleRenderTests.walkthrough("12-certificate-pin-vs-installed-ca")
        #expect(state.report?.verdict == "REJECTED at pinnedAnchors")

        Self.press([.character("F")], &state)
        let hooks = ClientLibraries.builtIn.hooks.map(\.name)
        #expect(state.scenario?.attacker.hooks == hooks)
        #expect(state.report?.verdict == "ACCEPTED at urlSessionChallengeHook")
        #expect(state.change?.hasPrefix("attack forge with 'attacker-ca' → forge with 'attacker-ca', hooking setSSLPinningMode, ") == true)
        let screen = render(state, size: Size(columns: 80, rows: 24)).text
        #expect(screen.contains("ACCEPTED at urlSessionChallengeHook"))

        Self.press([.character("F")], &state)
        #expect(state.scenario?.attacker.hooks == [])
        #expect(state.report?.verdict == "REJECTED at pinnedAnchors")
    }

    @Test func pressingFInAHookedLessonTakesItsOwnHooksOffAndPutsThemBack() throws {
        var state = ConsoleRenderTests.walkthrough("61-hooked-afnetworking-setters")
        #expect(state.report?.verdict == "ACCEPTED at chainTrust")
        Self.press([.character("F")], &state)
        #expect(state.report?.verdict == "REJECTED at pinnedAnchors")
        Self.press([.character("F")], &state)
        #expect(state.scenario?.attacker.hooks == ["setSSLPinningMode"])
        #expect(state.report?.verdict == "ACCEPTED at chainTrust")
    }

    @Test func helpListsEveryKeyAndQuitLeavesFromTheList() {
        var state = ConsoleState(catalog: ConsoleRenderTests.catalog)
        Self.press([.character("?")], &state)
        let help = render(state, size: Size(columns: 120, rows: 40)).text
        for key in [
            "Tab", "↑ ↓ PgUp PgDn", "→ ← Space", "Enter", "j", "a", "d", "p", "P", "A", "F", "t", "c", "D", "v", "L", "H", "S E", "r", "x i", "m", "C", "y n",
            "q Esc",
        ] {
            #expect(help.contains("\n  \(key) "), "\(key)")
        }
        #expect(help.contains("? or q closes this help"))
        for entry in ["cycle the AFNetworking release", "the challenge handler: afnetworking, acceptAll, systemDefault", "NSAllowsArbitraryLoads (S)"] {
            #expect(help.contains(entry), "\(entry)")
        }
        Self.press([.character("q")], &state)
        #expect(!state.showHelp)
        #expect(update(&state, .character("q")) == .quit)
    }
}

/// Where a certificate id sits in the pin checklist (authorities first, then leaves).
enum AttackChoiceIndex {
    static func index(of id: String, in scenario: Scenario) -> Int {
        (scenario.world.authorities.map(\.id) + scenario.world.leaves.map(\.id)).firstIndex(of: id) ?? 0
    }
}
