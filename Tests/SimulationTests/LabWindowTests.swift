import Foundation
import LoopbackTLS
import PKI
import Simulation
import TestSupport
import Testing

/// What a lab keeps of its connections: the latest `FlowWindow.size`, each small whatever its client sent.
@Suite(.serialized) struct LabWindowTests {
    func withLab(_ body: (Lab) throws -> Void) throws {
        let scenario = try #require(
            Lessons.all.first { $0.attacker.attack == .forge })
        let directory = NSTemporaryDirectory() + "mitmsim-lab-window-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lab = try Lab(scenario, directory: directory) { _ in }
        defer { lab.stop() }
        try body(lab)
    }

    /// The lab logs a connection when it ends, a moment after the client is done.
    func eventually(_ lab: Lab, _ condition: (Lab.FlowWindow) -> Bool) -> Bool {
        for _ in 0..<250 where !condition(lab.flowWindow) { usleep(20_000) }
        return condition(lab.flowWindow)
    }

    @Test func aLabKeepsTheLatest200ConnectionsAndCountsTheOthers() throws {
        try withLab { lab in
            let client = try TLSClient(host: lab.scenario.server.host, trustStore: DeviceTrustStore(system: []), verifyDate: Date())
            let login = HTTPMessage.request(
                "POST", "/login", host: lab.scenario.server.host, body: Array("username=alice&password=hunter2".utf8),
                contentType: "application/x-www-form-urlencoded")
            var signedIn = 0
            for _ in 0..<230 {
                let result = client.exchange(.httpProxy(port: lab.proxyPort), request: login, log: EventLog()) { _, _ in
                    .init(accept: true, verdict: true, summary: "accepted")
                }
                if result.response != nil { signedIn += 1 }
            }
            #expect(signedIn == 230)
            #expect(eventually(lab) { $0.total == 230 }, "\(lab.flowWindow.total) connections logged")

            let window = lab.flowWindow
            #expect(Lab.FlowWindow.size == 200)
            #expect(window.flows.count == 200)
            #expect(window.dropped == 30)
            #expect(window.flows.contains { $0.number == 230 }, "the newest is kept")
            #expect(!window.flows.contains { $0.number == 1 }, "the oldest is dropped")
            #expect(lab.flows.map(\.number) == window.flows.map(\.number))
            #expect(lab.requestsReceived.count == 200, "the bank keeps as many requests")
        }
    }

    @Test func textAClientChoseIsKeptUpTo200Characters() throws {
        try withLab { lab in
            let agent = String(repeating: "A", count: 5_000)
            let password = String(repeating: "p", count: 5_000)
            let curl = try Subprocess.run(
                "/usr/bin/curl",
                [
                    "-k", "-sS", "--proxy", "http://127.0.0.1:\(lab.proxyPort)", "-A", agent, "-d", "username=alice&password=\(password)",
                    "https://\(lab.scenario.server.host)/login",
                ])
            #expect(curl.status == 0, "\(curl.output)")
            #expect(eventually(lab) { $0.flows.contains { $0.stolenSecret != nil } })
            let read = try #require(lab.flows.first { $0.stolenSecret != nil })
            #expect(read.userAgent == String(repeating: "A", count: 199) + "…")
            #expect(read.stolenSecret == String(repeating: "p", count: 199) + "…")

            let host = String(repeating: "h", count: 5_000)
            // curl refuses a host this long, so the CONNECT goes by bash's /dev/tcp.
            let refused = try Subprocess.paste(
                "exec 3<>/dev/tcp/127.0.0.1/\(lab.proxyPort); printf 'CONNECT \(host):443 HTTP/1.1\\r\\n\\r\\n' >&3; cat <&3")
            #expect(refused.output.hasPrefix("HTTP/1.1 403 Forbidden"), "\(refused.output.prefix(100))")
            #expect(eventually(lab) { $0.flows.contains { $0.connectTarget?.hasPrefix("hhh") == true } })
            let connect = try #require(lab.flows.first { $0.connectTarget?.hasPrefix("hhh") == true })
            #expect(connect.connectTarget == String(repeating: "h", count: 199) + "…")
            #expect(connect.host == String(repeating: "h", count: 199) + "…")
            #expect(connect.description.count < 1_000, "\(connect.description.count) characters")

            let protocols = (1...20).map { "protocol-\($0)" }.joined(separator: ",")
            _ = try Subprocess.run(
                "/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(lab.proxyPort)", "-servername", lab.scenario.server.host, "-alpn", protocols],
                input: [])
            let ours = { (flow: Lab.Flow) in flow.offeredProtocols?.first == "protocol-1" }
            #expect(eventually(lab) { $0.flows.contains(where: ours) })
            let offered = try #require(lab.flows.first(where: ours)?.offeredProtocols)
            #expect(offered == (1...16).map { "protocol-\($0)" } + ["…"])
        }
    }
}
