import Foundation
import PKI
import TestSupport
import Testing

@testable import LoopbackTLS
@testable import Simulation

/// The lab against clients that take more than their share: one address holding connections open, a client
/// that sends its handshake a byte at a time, and a bank the attacker cannot reach. Clients come from other
/// loopback addresses (127.0.0.2, …) where the lab must tell them apart; nothing leaves this machine.
@Suite(.awayFromThePool) struct LabLimitsTests {
    /// A lab on 127.0.0.1 in the world of lesson 02, with the lines it logs about refused connections.
    func withLab(_ body: (Lab, Locked<[String]>) async throws -> Void) async throws {
        let notices = Locked<[String]>([])
        let directory = NSTemporaryDirectory() + "mitmsim-lab-limits-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lesson = try ScenarioLoader.load("\(CatalogTests.scenarios)/02-forged-untrusted-ca.yaml")
        let lab = try Lab(lesson, directory: directory, onFlow: { _ in }, onNotice: { line in notices.withLock { $0.append(line) } })
        defer { lab.stop() }
        try await body(lab, notices)
    }

    /// The profile page, as a browser on 127.0.0.1 asks for it: its status line, or nil.
    func profilePage(_ port: UInt16) -> String? {
        guard let browser = try? RawConnection(port: port) else { return nil }
        defer { browser.close() }
        browser.send(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        return String(decoding: browser.readToEnd(), as: UTF8.self).split(separator: "\r\n").first.map(String.init)
    }

    /// Waits (5 s at most) until `notices` holds a line containing `text`.
    func eventually(_ notices: Locked<[String]>, contain text: String) -> Bool {
        for _ in 0..<250 where !notices.withLock({ $0.contains { $0.contains(text) } }) { usleep(20_000) }
        return notices.withLock { $0.contains { $0.contains(text) } }
    }

    @Test func oneAddressHoldsAtMostTheCapWhileOthersAreServedAndTheLogSaysSoOncePerEpisode() async throws {
        try await withLab { lab, notices in
            let cap = Lab.connectionsPerAddress
            let held = (0..<cap).compactMap { _ in try? RawConnection(port: lab.proxyPort, from: "127.0.0.2") }
            defer { for connection in held { connection.close() } }
            #expect(held.count == cap)
            let extra = (0..<20).compactMap { _ in try? RawConnection(port: lab.proxyPort, from: "127.0.0.2") }
            defer { for connection in extra { connection.close() } }
            // Each connection past the cap is closed at once; those within it stay open.
            #expect(extra.count == 20 && extra.allSatisfy { $0.closedByPeer(within: 2) })
            #expect(!held[0].closedByPeer(within: 0.2) && !held[cap - 1].closedByPeer(within: 0.2))
            // Another address is served meanwhile.
            #expect(profilePage(lab.proxyPort) == "HTTP/1.1 200 OK")
            #expect(
                notices.withLock { $0 } == [
                    "the attacker refuses connections from 127.0.0.2: it holds \(cap) from there, the most one address may; further refusals are counted"
                ])
            for connection in held { connection.close() }
            #expect(eventually(notices, contain: "the attacker refused 20 connections from 127.0.0.2, which is under its cap again"))
            #expect(notices.withLock { $0.count } == 2, "\(notices.withLock { $0 })")
        }
    }

    @Test func theBankCapsOtherAddressesButNotTheLabsOwnWhereTheAttackerConnectsFrom() async throws {
        try await withLab { lab, notices in
            let cap = Lab.connectionsPerAddress
            let held = (0..<cap + 1).compactMap { _ in try? RawConnection(port: lab.originPort, from: "127.0.0.3") }
            defer { for connection in held { connection.close() } }
            #expect(held.count == cap + 1 && held[cap].closedByPeer(within: 2))
            #expect(eventually(notices, contain: "the bank refuses connections from 127.0.0.3"))
            let own = (0..<cap + 1).compactMap { _ in try? RawConnection(port: lab.originPort) }
            defer { for connection in own { connection.close() } }
            #expect(own.count == cap + 1 && !own[cap].closedByPeer(within: 0.5))
        }
    }

    /// A ClientHello sent a byte a second never meets the socket's 5-second timeout: only a deadline for the whole
    /// handshake frees the thread. Before, such a client held it for as long as it kept sending.
    @Test func aHandshakeSentAByteASecondIsCutOffAtTheHandshakeDeadlineAtTheAttackerAndTheBank() async throws {
        try await withLab { lab, _ in
            let deadline = TimeInterval(TLSConnection.handshakeDeadline.components.seconds)
            let cutAfter = Locked<[UInt16: TimeInterval]>([:])
            // Ten seconds of waiting, off Swift Testing's threads.
            try await offThePool {
                onThreads(2) { index in
                    let port = index == 0 ? lab.proxyPort : lab.originPort
                    guard let client = try? RawConnection(port: port) else { return }
                    defer { client.close() }
                    let start = Date()
                    // A handshake record that announces 512 bytes, of which one comes each second.
                    client.send([0x16, 0x03, 0x01, 0x02, 0x00])
                    for _ in 0..<Int(deadline) * 3 {
                        if client.closedByPeer(within: 1) {
                            cutAfter.withLock { $0[port] = Date().timeIntervalSince(start) }
                            return
                        }
                        client.send([0x01])
                    }
                }
            }
            for port in [lab.proxyPort, lab.originPort] {
                let cut = try #require(cutAfter.withLock { $0[port] }, "port \(port) still held the connection after \(Int(deadline) * 3) s")
                #expect(cut >= deadline - 1 && cut < deadline * 2, "cut after \(cut) s")
            }
        }
    }

    /// After its answer a connection waits for the peer to close too, reading what it still sends: a client that
    /// sends a byte every half second after the answer never meets the socket's 5-second timeout, so only a
    /// deadline for that wait frees the thread.
    @Test func aClientThatTricklesBytesAfterItsAnswerIsLetGoWithinTheDrainTime() async throws {
        try await withLab { lab, _ in
            let client = try RawConnection(port: lab.proxyPort)
            defer { client.close() }
            client.send(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            let drain = TimeInterval(Socket.drainTime.components.seconds)
            // Five seconds of waiting, off Swift Testing's threads.
            let closedAfter = try await offThePool { () -> TimeInterval? in
                let start = Date()
                // Once the lab has closed its end, a byte sent is answered with a reset, and the next send fails.
                for _ in 0..<Int(drain) * 6 {
                    usleep(500_000)
                    if Glibc.send(client.descriptor, [0x20], 1, Int32(MSG_NOSIGNAL)) < 0 { return Date().timeIntervalSince(start) }
                }
                return nil
            }
            let closed = try #require(closedAfter, "the lab still held the connection after \(Int(drain) * 3) s")
            #expect(closed >= drain - 1 && closed < drain * 2, "let go after \(closed) s")
        }
    }

    @Test func anUnreachableBankIsLoggedAsTheAttackersFailedConnectionWithTheSystemsReason() throws {
        let factory = CertificateFactory(now: Date())
        let authority = try factory.makeIdentity(
            .authority(label: "attacker", commonName: "attacker", notBefore: Date().addingTimeInterval(-3600), notAfter: Date().addingTimeInterval(3600)))
        // A port that was free a moment ago: nothing listens there, so connecting is refused.
        let closed = try Loopback.freePort()
        let proxy = try InterceptingProxy(
            attack: .forge(authority: authority), routes: ["bank.test": closed], log: EventLog(), factory: factory)
        defer { proxy.stop() }
        let client = try TLSClient(host: "bank.test", trustStore: DeviceTrustStore(system: []), verifyDate: Date())
        _ = client.exchange(.direct(port: proxy.port), request: .request("GET", "/", host: "bank.test"), log: EventLog()) { _, _ in
            .init(accept: true, verdict: true, summary: "")
        }
        let flow = Lab.Flow(try #require(proxy.flows.first), secret: "")
        #expect(flow.outcome == .upstreamFailed(reason: "connect 127.0.0.1:\(closed) failed: Connection refused"))
        #expect(
            flow.description.hasPrefix(
                "#1 transparent TLS: the attacker's own connection to 'bank.test' failed, so it presented nothing: "
                    + "connect 127.0.0.1:\(closed) failed: Connection refused"), "\(flow.description)")
    }
}
