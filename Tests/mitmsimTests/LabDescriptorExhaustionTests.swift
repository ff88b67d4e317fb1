import Foundation
import TestSupport
import Testing

/// `mitmsim lab` run out of descriptors, as `ulimit -n` and a crowd of idle connections leave it. Before, the
/// first failed accept() ended the attacker's accept loop for good: the lab stayed up, said nothing, and never
/// answered again. The lab runs in a process of its own, so its limit is its alone.
@Suite(.awayFromThePool) struct LabDescriptorExhaustionTests {
    /// The profile page from 127.0.0.1: its status line once the lab answered and closed, within `seconds`.
    static func profilePage(_ port: UInt16, within seconds: TimeInterval) -> String? {
        guard let browser = try? RawConnection(port: port) else { return nil }
        defer { browser.close() }
        browser.send(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        let answer = browser.readUntilClosed(within: seconds)
        return answer.closed ? String(decoding: answer.bytes, as: UTF8.self).split(separator: "\r\n").first.map(String.init) : nil
    }

    /// Its waits (for the lab, for the log line, for the lab to settle) run away from Swift Testing's threads (the suite's
    /// `.awayFromThePool`).
    @Test func outOfDescriptorsTheLabSaysSoOnceKeepsListeningAndServesAgainOnceTheConnectionsEnd() throws {
        let lab = try RunningLab(descriptorLimit: 64)
        defer { lab.stop() }
        let idle = try lab.usage()
        #expect(idle.descriptors < 32, "the lab needs \(idle.descriptors) descriptors before any connection")
        // More idle connections than the lab has descriptors, from four addresses, each under the per-address cap.
        let crowd = (0..<100).compactMap { try? RawConnection(port: lab.port, from: "127.0.0.\(2 + $0 % 4)") }
        defer { for connection in crowd { connection.close() } }
        #expect(crowd.count == 100)
        let failing = "[lab] the attacker cannot accept connections (accept failed: Too many open files)"
        for _ in 0..<100 where (try? lab.output())?.contains(failing) != true { usleep(50_000) }
        let during = try lab.output()
        #expect(during.components(separatedBy: "cannot accept connections").count == 2, "said once: \(during)")

        for connection in crowd { connection.close() }
        #expect(Self.profilePage(lab.port, within: 3) == "HTTP/1.1 200 OK")
        #expect(try lab.output().contains("[lab] the attacker accepts connections again, after "))
        let settled = lab.eventually { $0.threads == idle.threads && $0.descriptors == idle.descriptors }
        #expect(settled, "\(lab.lastUsage), idle: \(idle)")
    }
}
