import Console
import Foundation
import Simulation
import TestSupport
import Testing

/// The lab's screen at the projector's 80×24, with connections the real lab logged (`LabScreenTests.withRefusalThenTheft`):
/// each flow whole, the commands behind `c`, and `?` naming the keys.
@Suite(.serialized) struct LabProjectorScreenTests {
    @Test func atEightyColumnsRefusedAndStolenAreOnScreenAndCShowsEachCommandWhole() throws {
        try LabScreenTests.withRefusalThenTheft { scenario, lab in try projector(scenario, lab) }
    }

    /// The lab's help is a page of the lab's own keys: ↓ scrolls what is drawn, and with every key on screen it has nothing to scroll.
    @Test func theLabsHelpScrollsItsOwnKeys() {
        var state = ConsoleState(catalog: [])
        state.screen = .lab
        state.lab = ConsoleState.LabView(title: "world of 'test'", commands: [])
        _ = update(&state, .character("?"))
        _ = update(&state, .down)
        #expect(state.helpScroll == 0)
        let help = render(state, size: Size(columns: 80, rows: 24)).text
        #expect(help.contains("keys of the classroom lab") && help.contains("stops the lab as q does"), "\(help)")
        #expect(!help.contains("allowInvalidCertificates"), "\(help)")
    }

    private func projector(_ scenario: Scenario, _ lab: Lab) throws {
        var state = LabScreenTests.labScreen(lab, title: "attacker on 127.0.0.1:\(lab.proxyPort), world of '\(scenario.id)'")
        let size = Size(columns: 80, rows: 24)

        let flows = render(state, size: size)
        let rows = flows.text.components(separatedBy: "\n")
        #expect(rows[0].contains("attacker on 127.0.0.1:\(lab.proxyPort)"), "\(flows.text)")
        // Each flow's whole sentence is on screen, wrapped.
        for flow in lab.flows { #expect(Screen.words(flows.text).contains(Screen.words(flow.description)), "\(flow.description)\n\(flows.text)") }
        let refused = try #require(rows.firstIndex { $0.contains("REFUSED") }, "\(flows.text)")
        let stolen = try #require(rows.firstIndex { $0.contains("STOLEN password 'hunter2'") }, "\(flows.text)")
        let refusedColumn = try #require(rows[refused].range(of: "REFUSED")).lowerBound.utf16Offset(in: rows[refused])
        #expect(flows.style(at: refused, refusedColumn) == .rejected)
        #expect(flows.style(at: stolen, 2) == .leaked)

        #expect(update(&state, .character("c")) == nil)
        let commands = render(state, size: size).text
        let first = try #require(lab.commands.first)
        #expect(commands.contains("1. \(first.title)"), "\(commands)")
        #expect(Screen.words(commands).contains(Screen.words(lab.trustCheckSentence)), "\(commands)")
        // Wrapped at spaces (only the long temporary path of the test's directory is cut mid-word).
        #expect(Screen.words(commands).contains(Screen.words(lab.commands[1].line)), "command 2 whole:\n\(commands)")
        #expect(Screen.words(commands).contains(Screen.words("expect \(first.expected)")), "\(commands)")
        _ = update(&state, .down)
        let second = render(state, size: size).text
        #expect(second.contains("2. \(lab.commands[1].title)") && !second.contains("1. \(first.title)"), "\(second)")

        _ = update(&state, .character("?"))
        let help = render(state, size: size).text
        #expect(help.contains("keys of the classroom lab") && help.contains("the commands to paste"), "\(help)")
        _ = update(&state, .character("?"))
        // q leaves the commands first, and only then stops the lab.
        #expect(update(&state, .character("q")) == nil)
        #expect(render(state, size: size).text.contains("intercepted connections"))
        #expect(update(&state, .character("q")) == .quit)
    }
}
