import Foundation
import LoopbackTLS
import TestSupport
import Testing

/// `mitmsim lab` in the classroom of issue 19: one curious student sends it every request that once killed or
/// stalled it, and floods it, while another keeps signing in. The lab runs as a child process with 256
/// descriptors (`ulimit -n 256`); every attacker is on 127.0.0.1 and its loopback neighbours (127.0.0.2, …), each
/// loop is bounded, and the well-behaved client signs in through the attacker (HTTP CONNECT and TLS, as the printed
/// curl commands do) or fetches the profile page, every 0.2 s, and must be answered within 1 s throughout.
///
/// The one exception is the moment the lab has no descriptor left, which no server can serve through: there the
/// test holds the lab to answering within 1 s once the crowd that took them has gone.
@Suite(.serialized, .awayFromThePool) struct HostileClassroomTests {
    static let descriptorLimit = 256

    /// Nearly all of it is waiting (for the lab, for slow clients, for its deadlines): the suite runs away from Swift
    /// Testing's threads (`.awayFromThePool`), so other suites run meanwhile.
    @Test func theLabOutlivesEveryRequestAndFloodAndServesAWellBehavedClientWithinOneSecondThroughout() throws {
        let lab = try RunningLab(descriptorLimit: Self.descriptorLimit)
        defer { lab.stop() }
        let bankPort = try #require(try lab.output().firstMatch(of: /Bank bank\.test on 127\.0\.0\.1:(\d+)/).flatMap { UInt16($0.1) })
        let idle = try lab.usage()
        let student = try WellBehavedStudent(port: lab.port)
        student.start()

        // MARK: The requests that crashed the lab before its HTTP framing was replaced (branch `framing`).
        student.phase = "framing"
        let plain = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n".utf8)
        #expect(Self.send(plain, to: lab.port) != nil, "Content-Length: -1 as plain HTTP to the attacker")
        let insideTLS: [(port: UInt16, request: String, what: String)] = [
            (bankPort, "GET / HTTP/1.1\\r\\nHost: bank.test\\r\\nContent-Length: -1\\r\\n\\r\\n", "Content-Length: -1 inside TLS to the bank"),
            (lab.port, "GET / HTTP/1.0\\r\\n\\r\\n", "a request with no header lines through the attacker's transparent TLS"),
            (
                lab.port, "POST /login HTTP/1.1\\r\\nHost: bank.test\\r\\nContent-Length: 9223372036854775807\\r\\n\\r\\n",
                "Content-Length: 9223372036854775807 inside TLS through the attacker"
            ),
        ]
        for repro in insideTLS {
            _ = try Subprocess.paste(Self.sClient(port: repro.port, sending: repro.request, for: 2))
            #expect(lab.process.isRunning, "\(repro.what)")
        }
        // Six downloads of the largest /bytes/N at once, each read for its first 64 KiB while the lab's memory is watched.
        let highest = Locked(0)
        let (pid, attackerPort) = (lab.process.processIdentifier, lab.port)
        onThreads(7) { index in
            guard index < 6 else {
                for _ in 0..<40 {
                    highest.withLock { $0 = max($0, Self.rssKiB(pid)) }
                    usleep(100_000)
                }
                return
            }
            let request = "GET /bytes/268435456 HTTP/1.1\\r\\nHost: bank.test\\r\\n\\r\\n"
            let port = index % 2 == 0 ? bankPort : attackerPort
            _ = try? Subprocess.paste(Self.sClient(port: port, sending: request, for: 3) + " | head -c 65536 >/dev/null")
        }
        #expect(lab.process.isRunning)
        #expect(
            idle.isSanitized || highest.withLock { $0 } - idle.rssKiB < Self.downloadMargin,
            "six downloads of 256 MiB took the lab from \(idle.rssKiB) KiB to \(highest.withLock { $0 }) KiB")

        // MARK: Slow, silent and malformed clients, and a crowd from one address.
        student.phase = "floods"
        onThreads(5) { index in
            switch index {
            case 0: Self.dribble(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8) + [UInt8](repeating: 0x61, count: 100), to: attackerPort)
            case 1: Self.dribble([0x16, 0x03, 0x01, 0x02, 0x00] + [UInt8](repeating: 0x01, count: 100), to: attackerPort)
            case 2: Self.dribble([0x16, 0x03, 0x01, 0x02, 0x00] + [UInt8](repeating: 0x01, count: 100), to: bankPort)
            case 3: Self.halfOpenAndGarbage(attacker: attackerPort, bank: bankPort)
            default: Self.crowdFromOneAddress(attacker: attackerPort, bank: bankPort)
            }
        }
        #expect(lab.process.isRunning)
        #expect(try lab.output().contains("[lab] the attacker refuses connections from 127.0.0.9: it holds 64 from there"))
        #expect(try lab.output().contains("[lab] the bank refuses connections from 127.0.0.9: it holds 64 from there"))

        // MARK: More idle connections than the lab has descriptors, then gone.
        student.phase = nil  // nobody can be served while no descriptor is left
        let crowd = (0..<Self.descriptorLimit + 60).compactMap { try? RawConnection(port: lab.port, from: "127.0.0.\(10 + $0 % 6)") }
        for _ in 0..<100 where (try? lab.output())?.contains("the attacker cannot accept connections") != true { usleep(50_000) }
        for connection in crowd { connection.close() }
        #expect(crowd.count == Self.descriptorLimit + 60)
        #expect(try lab.output().contains("[lab] the attacker cannot accept connections (accept failed: Too many open files)"))
        student.phase = "after the descriptors came back"
        sleep(2)
        student.stop()

        #expect(lab.process.isRunning, "\(((try? lab.output()) ?? "").suffix(2000))")
        let slow = student.samples.filter { !$0.served || $0.seconds >= 1 }
        #expect(student.samples.count > 20 && slow.isEmpty, "\(student.samples.count) requests; late or failed: \(slow)")

        // Afterwards the lab holds what it held before the class.
        let settled = Self.eventually(lab) { $0.threads == idle.threads && $0.descriptors == idle.descriptors }
        #expect(settled, "threads \(lab.lastUsage.threads), descriptors \(lab.lastUsage.descriptors); idle: \(idle)")
        #expect(
            idle.isSanitized || lab.lastUsage.rssKiB - idle.rssKiB < Self.rssMargin, "RSS \(idle.rssKiB) KiB idle, \(lab.lastUsage.rssKiB) KiB after")
        lab.stop()
        #expect(lab.process.terminationStatus == 0, "\(((try? lab.output()) ?? "").suffix(2000))")
    }

    /// Memory the lab may take on top of its idle size while six 256 MiB downloads are under way (one such body
    /// held whole is 256 MiB), and what it may keep after the class: generous, the allocator keeps some.
    static let downloadMargin = 128 << 10  // KiB
    static let rssMargin = 48 << 10  // KiB

    /// The resident memory of process `pid`, in KiB (0 once it is gone).
    static func rssKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.flatMap { Int($0.split(whereSeparator: \.isWhitespace)[1]) } ?? 0
    }

    /// `openssl s_client` to `port` (SNI bank.test) that sends `request` (printf's escapes) and stays `seconds`, as issue 19's repros do.
    static func sClient(port: UInt16, sending request: String, for seconds: Int) -> String {
        "(printf '\(request)'; sleep \(seconds)) | timeout 10 openssl s_client -connect 127.0.0.1:\(port) -servername bank.test -quiet 2>/dev/null"
    }

    /// Sends `bytes`, half-closes, and reads the answer until the lab closes (10 s at most); nil when it never did.
    static func send(_ bytes: [UInt8], to port: UInt16, from source: String? = nil) -> [UInt8]? {
        guard let connection = try? RawConnection(port: port, from: source) else { return nil }
        defer { connection.close() }
        connection.send(bytes)
        connection.finishSending()
        let answer = connection.readUntilClosed(within: 10)
        return answer.closed ? answer.bytes : nil
    }

    /// Sends `bytes` one a second from 127.0.0.2 until the lab hangs up, as a slow client does: the lab must hang
    /// up (the deadline for a head or a handshake is seconds), long before all of them are sent.
    static func dribble(_ bytes: [UInt8], to port: UInt16) {
        guard let connection = try? RawConnection(port: port, from: "127.0.0.2") else {
            Issue.record("cannot connect to \(port)")
            return
        }
        defer { connection.close() }
        for byte in bytes {
            connection.send([byte])
            if connection.closedByPeer(within: 1) { return }
        }
        Issue.record("port \(port) still listened to a client sending a byte a second after \(bytes.count) s")
    }

    /// Half-open connections (half a ClientHello, then silence; half a CONNECT head, then a half-close) and garbage
    /// where TLS is expected, from 127.0.0.3 to 127.0.0.8.
    static func halfOpenAndGarbage(attacker: UInt16, bank: UInt16) {
        let halfAClientHello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03]
        var random = SplitMix64(seed: 19)
        let silent = (0..<120).compactMap { index -> RawConnection? in
            let connection = try? RawConnection(port: index % 3 == 0 ? bank : attacker, from: "127.0.0.\(3 + index % 6)")
            connection?.send(index % 2 == 0 ? halfAClientHello : Array("CONNECT bank.test:443 HTTP/1.1\r\n".utf8))
            if index % 2 == 1 { connection?.finishSending() }
            return connection
        }
        for index in 0..<40 {
            let garbage = (index % 2 == 0 ? [0x16, 0x03, 0x01, 0x08, 0x00] : []) + (0..<2048).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = send(garbage, to: index % 4 < 2 ? attacker : bank, from: "127.0.0.\(3 + index % 6)")
        }
        for connection in silent {
            _ = connection.closedByPeer(within: 15)  // the lab hangs up on each
            connection.close()
        }
    }

    /// Idle connections from one address (127.0.0.9), twice the per-address cap, to the attacker and to the bank.
    static func crowdFromOneAddress(attacker: UInt16, bank: UInt16) {
        let crowd = (0..<256).compactMap { index in try? RawConnection(port: index % 2 == 0 ? attacker : bank, from: "127.0.0.9") }
        sleep(1)
        for connection in crowd { connection.close() }
    }

    /// Waits (30 s at most: a silent client is dropped after 5, and an idle worker thread ends after 10) until the
    /// lab's usage meets `condition`.
    static func eventually(_ lab: RunningLab, _ condition: (RunningLab.Usage) -> Bool) -> Bool {
        for _ in 0..<300 {
            if let usage = try? lab.usage(), condition(usage) { return true }
            usleep(100_000)
        }
        return false
    }
}

/// The student who only wants to sign in: every 0.2 s, a sign-in through the attacker (HTTP CONNECT, TLS) or the
/// profile page, in turn, timed, on a thread of its own until `stop()` (or 2,000 requests).
final class WellBehavedStudent: @unchecked Sendable {
    struct Sample: CustomStringConvertible {
        let phase: String
        let what: String
        let served: Bool
        let seconds: Double

        var description: String { "\(phase): \(what) \(served ? "took \(seconds) s" : "failed")" }
    }

    private let lock = NSLock()
    private var running = true
    private var collected: [Sample] = []
    private var currentPhase: String?
    private let clients: SoakClients
    private let port: UInt16
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    init(port: UInt16) throws {
        self.port = port
        clients = try SoakClients(port: port)
    }

    /// What the lab is going through; nil while nobody can be served (requests are then not made).
    var phase: String? {
        get { lock.withLock { currentPhase } }
        set { lock.withLock { currentPhase = newValue } }
    }

    var samples: [Sample] { lock.withLock { collected } }

    func start() {
        let thread = Thread { [self] in
            for turn in 0..<2_000 where lock.withLock({ running }) {
                defer { usleep(200_000) }
                guard let phase else { continue }
                let start = Date()
                let signIn = turn % 2 == 0
                let served = signIn ? clients.signIn() : LabDescriptorExhaustionTests.profilePage(port, within: 5) == "HTTP/1.1 200 OK"
                let sample = Sample(phase: phase, what: signIn ? "a sign-in" : "the profile page", served: served, seconds: Date().timeIntervalSince(start))
                lock.withLock { collected.append(sample) }
            }
            done.signal()
        }
        self.thread = thread
        thread.start()
    }

    func stop() {
        lock.withLock { running = false }
        done.wait()
    }
}
