import Console
import Foundation
import Simulation
import TestSupport
import Testing

/// The lab screen once the lab has dropped connections older than its window, or refused some.
@Suite(.serialized) struct LabWindowScreenTests {
    /// A live lab in lesson 02's world and the console's lab screen showing it.
    func withLabScreen(_ body: (Lab, inout ConsoleState) throws -> Void) throws {
        let scenario = try #require(LabScreenTests.lesson)
        let directory = NSTemporaryDirectory() + "mitmsim-lab-window-screen-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lab = try Lab(scenario, directory: directory) { _ in }
        defer { lab.stop() }
        var state = ConsoleState(catalog: [])
        state.screen = .lab
        state.lab = ConsoleState.LabView(title: "world of '\(scenario.id)'", commands: lab.commands)
        try body(lab, &state)
    }

    @Test func theLabScreenSaysHowManyOfHowManyConnectionsTheLabKeeps() throws {
        try withLabScreen { lab, state in
            let size = Size(columns: 120, rows: 30)
            #expect(render(state, size: size).text.contains("─ intercepted connections, newest last ─"))

            // 230 requests for the profile page, by bash's /dev/tcp: cheap connections the lab logs like any other.
            let requests = try Subprocess.paste(
                "for i in $(seq 230); do exec 3<>/dev/tcp/127.0.0.1/\(lab.proxyPort); printf 'GET / HTTP/1.1\\r\\n\\r\\n' >&3; cat <&3 >/dev/null; "
                    + "exec 3<&-; done")
            #expect(requests.status == 0, "\(requests.output)")
            for _ in 0..<250 where lab.flowWindow.total < 230 { usleep(20_000) }
            state.lab?.window = lab.flowWindow
            let screen = render(state, size: size).text
            #expect(screen.contains("─ intercepted connections, newest last (the lab keeps the last 200 of 230) ─"), "\(screen)")
            #expect(screen.contains("#230 plain HTTP: the proxy answered 'GET / HTTP/1.1' with 200 OK"), "\(screen)")
        }
    }

    @Test func aLabThatRefusesConnectionsSaysSoOnTheTeachersScreen() throws {
        try withLabScreen { lab, state in
            // One device past the cap: its next connection is refused, and the lab's log says so.
            let held = (0...Lab.connectionsPerAddress).compactMap { _ in try? RawConnection(port: lab.proxyPort, from: "127.0.0.4") }
            defer { for connection in held { connection.close() } }
            for _ in 0..<250 where lab.flowWindow.notices.isEmpty { usleep(20_000) }
            state.lab?.window = lab.flowWindow
            let screen = render(state, size: Size(columns: 80, rows: 24)).text
            #expect(Screen.shows("the attacker refuses connections from 127.0.0.4", screen), "\(screen)")
            #expect(screen.contains("─ intercepted connections, newest last ─"), "\(screen)")
        }
    }
}
