import Console
import Foundation
import Simulation
import TestSupport
import Testing

/// A lesson and network clients that carry control characters, drawn by the console: no cell holds one, and
/// each is shown as its visible escape.
@Suite(.serialized) struct HostileTextTests {
    static func withHostileLesson(_ body: (Scenario) throws -> Void) throws {
        let directory = try HostileText.writeLesson()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(try ScenarioLoader.load("\(directory)/\(HostileText.lessonID).yaml"))
    }

    func expectNothingSteers(_ screen: ScreenBuffer, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let cells = screen.rows.flatMap { $0.map(\.character) }.filter { $0 != "\u{0}" }  // the placeholder the terminal skips
        #expect(HostileText.steering(String(cells)).isEmpty, "\(what): \(screen.text.debugDescription)", sourceLocation: sourceLocation)
    }

    @Test(arguments: [Size(columns: 80, rows: 24), Size(columns: 160, rows: 50)])
    func everyScreenOfAHostileLessonShowsItsControlCharactersEscaped(size: Size) throws {
        try Self.withHostileLesson { lesson in
            var state = ConsoleState(catalog: [lesson])
            expectNothingSteers(render(state, size: size), "the lesson list")
            #expect(render(state, size: size).text.contains(HostileText.shownTitle))

            state.scenario = lesson
            ConsoleApp.perform(.run, on: &state)
            let report = try #require(state.report)
            #expect(report.expectationsMet)
            for step in report.events.indices {
                state.step = step
                expectNothingSteers(render(state, size: size), "the walkthrough at step \(step + 1)")
            }
            #expect(render(state, size: size).text.contains(" mitmsim  \(HostileText.lessonID.replacingOccurrences(of: "\u{1B}", with: #"\e"#)): "))
            for screen in [ConsoleState.Screen.attacker, .inspector, .pins] {
                state.screen = screen
                expectNothingSteers(render(state, size: size), "\(screen)")
            }
        }
    }

    /// An escape is longer than the character it stands for, and the diagram is laid out before escaping: a label
    /// that grows is cut at the edge of its place, so every arrow keeps its head and the origin its ●.
    @Test(arguments: [Size(columns: 80, rows: 24), Size(columns: 160, rows: 50)])
    func aLabelThatGrowsWithItsEscapesStaysInItsPlace(size: Size) throws {
        try Self.withHostileLesson { lesson in
            var state = ConsoleState(catalog: [lesson])
            state.scenario = lesson
            ConsoleApp.perform(.run, on: &state)
            let origin = size.columns - 3
            var originLabels = 0
            for step in try #require(state.report).events.indices {
                state.step = step
                for line in render(state, size: size).text.components(separatedBy: "\n").map(Array.init) {
                    if let head = line.firstIndex(of: "▶") { #expect(line[head + 1] == "│", "step \(step + 1): \(String(line))") }
                    if String(line).contains("received HTTP request POST /login") {
                        originLabels += 1
                        #expect(line.indices.contains(origin) && line[origin] == "●", "step \(step + 1): \(String(line))")
                    }
                }
            }
            #expect(originLabels > 0, "the origin's label with the hostile request line was on screen")
        }
    }

    /// In classroom mode the header ends a column short of the score and the verdict line runs on after the
    /// attacker's summary, each measured by what was written, escapes included.
    @Test func theHeaderAndTheVerdictLineMakeRoomForTheirEscapes() throws {
        try Self.withHostileLesson { lesson in
            var long = lesson
            long.title = String(repeating: "\u{1B}", count: 60)
            var state = ConsoleState(catalog: [long], classroom: true)
            state.scenario = long
            ConsoleApp.perform(.run, on: &state)
            _ = update(&state, .character("y"))
            let lines = render(state, size: Size(columns: 120, rows: 40)).text.components(separatedBy: "\n")
            let header = Array(lines[0])
            let gap = 120 - "classroom  score 1/1 ".count - 1
            #expect(header[gap - 1] == "\\" && header[gap] == " ", "the title stops a column short of the score: \(lines[0])")
            #expect(lines[38].contains(#"The attacker read the password 'hunter2\e[8m'.  You were right."#), "\(lines[38])")
        }
    }

    @Test func theLessonKeepsItsParagraphsAndTheInspectorItsRows() throws {
        try Self.withHostileLesson { lesson in
            var state = ConsoleState(catalog: [lesson])
            state.scenario = lesson
            ConsoleApp.perform(.run, on: &state)
            let size = Size(columns: 160, rows: 50)
            let lines = render(state, size: size).text.components(separatedBy: "\n")
            let question = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "Will the app accept the forged chain?" })
            #expect(
                lines[question - 1].trimmingCharacters(in: .whitespaces) == #"Alice installed a profile. \e]0;pwned\a Her app keeps the default policy."#,
                "each paragraph on a line of its own")

            state.screen = .inspector
            let inspector = render(state, size: size).text
            #expect(inspector.contains(#"CN=bank.test, O=Example\u{7F} Bank\r\n[pass] chainTrust: fake"#), "\(inspector)")
            #expect(inspector.contains(#"CN=attacker\e]0;owned\a-ca"#), "\(inspector)")
        }
    }

    /// The flows come from a real lab, as it stores what real clients sent: the CONNECT host, the SNI and the request
    /// read. A method or User-Agent with a control character never gets past the parser in a CONNECT head (answered
    /// 400); sent straight to the attacker's TLS, it is read all the same.
    @Test func theLabScreenShowsWhatHostileClientsSentEscaped() throws {
        try Self.withHostileLesson { lesson in
            let directory = NSTemporaryDirectory() + "mitmsim-lab-hostile-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let lab = try Lab(lesson, directory: directory) { _ in }
            defer { lab.stop() }
            let clients = HostileText.labClients(host: "127.0.0.1", port: "\(lab.proxyPort)")
            for client in clients { _ = try Subprocess.paste(client) }
            for _ in 0..<100 where lab.flows.count < clients.count { usleep(20_000) }
            #expect(lab.flows.count == clients.count)
            #expect(lab.flows.filter { $0.description.contains("\u{1B}") }.count == 3, "the lab keeps what the clients sent as they sent it")

            var state = ConsoleState(catalog: [])
            state.screen = .lab
            state.lab = ConsoleState.LabView(title: "world of '\(lesson.id)'", commands: lab.commands)
            state.lab?.window = lab.flowWindow
            let screen = render(state, size: Size(columns: 250, rows: 40))
            expectNothingSteers(screen, "the lab screen")
            for shown in [HostileText.refusedCurl, HostileText.readRequest, #"CONNECT \e[2Jevil:443"#, #"SNI 'evil\e[2J'"#] {
                #expect(screen.text.contains(shown), "\(shown)")
            }
        }
    }
}
