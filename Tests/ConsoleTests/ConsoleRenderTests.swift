import Console
import Foundation
import Simulation
import TestSupport
import Testing

/// The console's screens, drawn without a terminal: golden text at 80×24 and 120×40, and the styles
/// that carry meaning. Re-record with `MITMSIM_RECORD_GOLDEN=1 swift test`.
struct ConsoleRenderTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let catalog = Lessons.all

    /// A walkthrough of `id`, run for real, pointed at the client's decision.
    static func walkthrough(_ id: String) -> ConsoleState { walkthroughs[id] }

    /// Each lesson's walkthrough, run once per test process: several suites read every lesson's.
    private static let walkthroughs = Memo { (id: String) in
        var state = ConsoleState(catalog: catalog)
        state.scenario = catalog.first { $0.id == id }
        ConsoleApp.perform(.run, on: &state)
        state.step = state.decidingStep ?? 0
        return state
    }

    static let golden = GoldenFiles()

    /// A screen's golden file ends with a newline, so the recorded file reads well in an editor.
    static func expectGolden(_ screen: ScreenBuffer, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try golden.expect(screen.text + "\n", matches: name, sourceLocation: sourceLocation)
    }

    static let lessons = ["02-forged-untrusted-ca", "03-installed-attacker-ca", "12-certificate-pin-vs-installed-ca"]

    @Test(arguments: lessons, [Size(columns: 80, rows: 24), Size(columns: 120, rows: 40)])
    func theWalkthroughReadsAsRecorded(_ id: String, size: Size) throws {
        try Self.expectGolden(render(Self.walkthrough(id), size: size), "\(id)-\(size.columns)x\(size.rows)")
    }

    @Test(arguments: [Size(columns: 80, rows: 24), Size(columns: 120, rows: 40)])
    func theLessonListReadsAsRecorded(size: Size) throws {
        try Self.expectGolden(render(ConsoleState(catalog: Self.catalog), size: size), "picker-\(size.columns)x\(size.rows)")
    }

    @Test func theDecidingStepAndTheVerdictCarryTheirStyles() throws {
        var state = Self.walkthrough("02-forged-untrusted-ca")
        state.step = (state.decidingStep ?? 1) - 1  // beside the deciding row, so it is on screen but not the highlighted row
        let screen = render(state, size: Size(columns: 120, rows: 40))
        let lines = screen.text.components(separatedBy: "\n")
        let judged = try #require(lines.firstIndex { $0.contains("REJECTED the chain") })
        let judgedColumn = try #require(lines[judged].range(of: "REJECTED")).lowerBound.utf16Offset(in: lines[judged])
        #expect(screen.style(at: judged, judgedColumn) == .deciding)
        let verdict = try #require(lines.lastIndex { $0.hasPrefix(" REJECTED at chainTrust") })
        #expect(screen.style(at: verdict, 2) == .rejected)
        let failedStep = try #require(lines.firstIndex { $0.contains("[FAIL] chainTrust") })
        let column = lines[failedStep].distance(from: lines[failedStep].startIndex, to: lines[failedStep].range(of: "[FAIL]")!.lowerBound)
        #expect(screen.style(at: failedStep, column) == .deciding)
    }

    @Test func aLeakIsShownInTheLeakStyle() throws {
        let screen = render(Self.walkthrough("03-installed-attacker-ca"), size: Size(columns: 80, rows: 24))
        let lines = screen.text.components(separatedBy: "\n")
        let last = lines.count - 2
        let column = lines[last].distance(from: lines[last].startIndex, to: try #require(lines[last].range(of: "The attacker read the password")).lowerBound)
        #expect(screen.style(at: last, column) == .leaked)
    }

    @Test func eachMessageIsAnArrowFromItsSenderToItsReceiverWithItsWholeLabel() throws {
        var state = Self.walkthrough("02-forged-untrusted-ca")
        state.step = try #require(state.report?.events.firstIndex { $0.text.hasPrefix("Certificate 'forged bank-leaf'") })
        let screen = render(state, size: Size(columns: 120, rows: 40))
        let lines = screen.text.components(separatedBy: "\n")
        let certificate = try #require(lines.first { $0.contains("Certificate 'forged bank-leaf' -> 'attacker-ca'") })
        #expect(certificate.contains("◀ Certificate 'forged bank-leaf' -> 'attacker-ca' ─"), "proxy to client, pointing at the client")
        let titles = try #require(lines.first { $0.hasPrefix("client") })
        let proxyLane = try #require(titles.range(of: "proxy / attacker")).lowerBound.utf16Offset(in: titles) + 8
        let label = try #require(certificate.range(of: "attacker-ca'"))
        let arrowEnd = try #require(certificate[label.upperBound...].firstIndex(of: "│")).utf16Offset(in: certificate)
        #expect(arrowEnd == proxyLane, "the arrow ends at the proxy's lane")
    }

    @Test func theLessonsMarkdownIsDrawnAsAttributesNotAsMarks() throws {
        var state = Self.walkthrough("02-forged-untrusted-ca")
        state.step = try #require(state.report?.events.firstIndex { $0.text.hasPrefix("Certificate 'forged bank-leaf'") })
        let screen = render(state, size: Size(columns: 120, rows: 40))
        let lines = screen.text.components(separatedBy: "\n")
        #expect(!screen.text.contains("**"))
        #expect(!screen.text.contains("`"))
        let story = try #require(lines.firstIndex { $0.contains("signed by attacker-ca") })
        let column = try #require(lines[story].range(of: "attacker-ca")).lowerBound.utf16Offset(in: lines[story])
        #expect(screen.style(at: story, column) == .code)
        let looks = try #require(lines.firstIndex { $0.contains("The forgery looks right") })
        let emphasis = try #require(lines[looks].range(of: "looks")).lowerBound.utf16Offset(in: lines[looks])
        #expect(screen.style(at: looks, emphasis) == .emphasis)
    }

    @Test func aSmallTerminalIsToldSo() {
        #expect(render(ConsoleState(catalog: Self.catalog), size: Size(columns: 60, rows: 15)).text.hasPrefix("Terminal too small: 60×15."))
    }
}

/// The lab screen with connections the real lab logged: a real curl refused, then a real curl -k leaked.
@Suite(.serialized) struct LabScreenTests {
    /// A lab on `lesson` that has logged a real curl refused, then a real curl -k leaked.
    static func withRefusalThenTheft(_ body: (Scenario, Lab) throws -> Void) throws {
        let scenario = try #require(Self.lesson)
        let directory = NSTemporaryDirectory() + "mitmsim-lab-screen-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lab = try Lab(scenario, directory: directory) { _ in }
        defer { lab.stop() }
        for title in ["curl through the attacker, trusting only the real root", "curl -k through the attacker"] {
            _ = try Subprocess.paste(try #require(lab.commands.first { $0.title == title }).line)
        }
        // The lab logs a connection when it ends, a moment after the client exits.
        for _ in 0..<100 where lab.flows.count < 2 { usleep(20_000) }
        #expect(lab.flows.map(\.outcome.isRead) == [false, true])
        try body(scenario, lab)
    }

    @Test func theLabScreenColoursEachConnectionByWhatHappened() throws {
        try Self.withRefusalThenTheft { scenario, lab in try colours(scenario, lab) }
    }

    /// The console on the lab's screen, showing what `lab` has logged under `title`.
    static func labScreen(_ lab: Lab, title: String) -> ConsoleState {
        var state = ConsoleState(catalog: [])
        state.screen = .lab
        state.lab = ConsoleState.LabView(title: title, commands: lab.commands, trustCheck: lab.trustCheckSentence)
        state.lab?.window = lab.flowWindow
        return state
    }

    private func colours(_ scenario: Scenario, _ lab: Lab) throws {
        var state = Self.labScreen(lab, title: "world of '\(scenario.id)'")
        let screen = render(state, size: Size(columns: 120, rows: 30))
        let lines = screen.text.components(separatedBy: "\n")
        let refused = try #require(lines.firstIndex { $0.contains("REFUSED") })
        let stolen = try #require(lines.firstIndex { $0.contains("STOLEN") })
        #expect(screen.style(at: refused, 2) == .rejected)
        #expect(screen.style(at: stolen, 2) == .leaked)
        #expect(update(&state, .character("q")) == .quit)
    }

    static var lesson: Scenario? { ConsoleRenderTests.catalog.first { $0.attacker.attack == .forge } }
}

extension Lab.Flow.Outcome {
    var isRead: Bool { if case .read = self { true } else { false } }
}
