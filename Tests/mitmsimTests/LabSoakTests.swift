import Foundation
import LoopbackTLS
import PKI
import TestSupport
import Testing

/// `mitmsim lab` left running as a teacher leaves it through a school day, under thousands of clients on
/// 127.0.0.1 that sign in, refuse the forgery, abort mid-handshake, half-close, send garbage, dribble, stop
/// halfway through a ClientHello and wait, or are real curl. Afterwards the lab holds what it held before: the same
/// descriptors and threads, and about the same memory.
///
/// The lab runs in its own process, so what it holds is measured alone, whatever other suites run meanwhile.
@Suite(.serialized, .awayFromThePool) struct LabSoakTests {
    /// Memory the lab may hold after the storm beyond what it held after the warm-up: the allocator's slack.
    /// A lab that keeps every connection grows by more than six times this over 2,000 connections: three times over the
    /// 1,000 of the soak every `swift test` runs.
    static let rssMargin = 5 << 10  // KiB

    /// Sized so that the whole suite stays quick on two cores; the long soak below is on request.
    @Test func oneThousandConnectionsLeaveTheLabAsTheyFoundIt() throws {
        try soak(connections: 1_000)
    }

    /// About a minute, so only on request: `MITMSIM_SOAK=1 swift test --filter LabSoakTests`.
    @Test(.enabled(if: Soak.isRequested))
    func eightThousandConnectionsLeaveTheLabAsTheyFoundIt() throws {
        try soak(connections: 8_000)
    }

    /// Most of a soak is waiting (for the lab, for the clients, for timeouts): the suite runs away from Swift Testing's
    /// threads (`.awayFromThePool`), so other suites run meanwhile.
    func soak(connections: Int) throws {
        let lab = try RunningLab()
        defer { lab.stop() }
        let idle = try lab.usage()
        let clients = try SoakClients(port: lab.port)

        // The warm-up fills the lab's window of recent flows and shows the allocator every kind of connection.
        let warmUp = clients.storm(400, held: 300)
        let settled = Self.settle(lab, clients, idle: idle)
        let before = try #require(settled, "after the warm-up: \(lab.lastUsage), idle: \(idle)")
        let storm = clients.storm(connections, held: 300)
        let descriptorsBack = lab.eventually { $0.descriptors == idle.descriptors }
        #expect(descriptorsBack, "descriptors: \(idle.descriptors) before, \(lab.lastUsage.descriptors) after")
        let settledAgain = Self.settle(lab, clients, idle: idle)
        let threadsBack = lab.eventually { $0.threads == idle.threads }
        #expect(threadsBack, "threads: \(idle.threads) before, \(lab.lastUsage.threads) after")
        let after = try #require(settledAgain, "after the storm: \(lab.lastUsage), idle: \(idle)")
        // Under a sanitizer the runtime's own shadow memory and thread histories grow with every connection,
        // so RSS says nothing about what the lab keeps there (threads and descriptors still must come back).
        #expect(
            after.isSanitized || after.rssKiB - before.rssKiB < Self.rssMargin,
            "RSS \(before.rssKiB) KiB after the warm-up, \(after.rssKiB) KiB after \(connections) more connections")

        // The storm really happened.
        #expect(storm.signedIn > connections / 10 && storm.refused > 0, "\(storm)")
        #expect(storm.curlFailures.isEmpty, "\(storm.curlFailures)")
        lab.stop()
        let logged = try lab.output().split(separator: "\n").filter { $0.hasPrefix("[flow] #") }.count
        #expect(logged == warmUp.connections + storm.connections + 2, "every connection the lab handled is on its log")
    }

    /// The lab's usage once every connection has ended and one more, a second later, signed in: the lab hands
    /// the memory connections freed back to the system at most once a second, when a connection ends. A connection
    /// has ended once its descriptor is closed; its worker thread lingers for seconds after that, so the threads are
    /// waited for once, after the sign-in.
    static func settle(_ lab: RunningLab, _ clients: SoakClients, idle: RunningLab.Usage) -> RunningLab.Usage? {
        let ended = { (usage: RunningLab.Usage) in usage.threads == idle.threads && usage.descriptors == idle.descriptors }
        guard lab.eventually({ $0.descriptors == idle.descriptors }) else { return nil }
        sleep(1)
        guard clients.signIn(), lab.eventually(ended) else { return nil }
        return try? lab.usage()
    }
}

/// `mitmsim lab` in a child process, its output in a file (a pipe nobody reads would stall it).
// @unchecked: one test drives it, one step after another, never two at once.
final class RunningLab: @unchecked Sendable {
    struct Usage: Sendable {
        var rssKiB = 0
        var threads = 0
        var descriptors = 0
        /// Address space reserved, in KiB: a sanitizer's runtime reserves terabytes for its shadow memory.
        var virtualKiB = 0

        var isSanitized: Bool { virtualKiB > 1 << 30 }
    }

    let process = Process()
    let directory = NSTemporaryDirectory() + "mitmsim-soak-\(UUID().uuidString)"
    private(set) var port: UInt16 = 0
    private(set) var lastUsage = Usage()

    /// - Parameter descriptorLimit: the lab's RLIMIT_NOFILE (`ulimit -n`), when it should have fewer descriptors.
    init(descriptorLimit: Int? = nil) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: directory + "/output.txt"))
        if let descriptorLimit {
            // exec: the lab is the shell's own process, so its /proc entries and ^C are the lab's.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" lab --dir \"$1\"", CommandLine.binary.path, directory + "/lab"]
        } else {
            process.executableURL = CommandLine.binary
            process.arguments = ["lab", "--dir", directory + "/lab"]
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/output.txt"))
        process.standardError = process.standardOutput
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for _ in 0..<600 where process.isRunning && (try? output())?.contains("^C stops the lab") != true { usleep(50_000) }
        let text = try output()
        guard let found = text.firstMatch(of: /attacker on 127\.0\.0\.1:(\d+)/), let port = UInt16(found.1) else {
            stop()
            throw LabDidNotStart(output: text)
        }
        self.port = port
    }

    func output() throws -> String { try String(contentsOfFile: directory + "/output.txt", encoding: .utf8) }

    /// The lab's resident memory, threads and open descriptors, from /proc.
    func usage() throws -> Usage {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        func field(_ name: String) -> Int {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }.flatMap { Int($0.split(whereSeparator: \.isWhitespace)[1]) } ?? 0
        }
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count
        lastUsage = Usage(rssKiB: field("VmRSS"), threads: field("Threads"), descriptors: descriptors, virtualKiB: field("VmSize"))
        return lastUsage
    }

    /// Waits (20 s at most: the lab drops a silent client after 5) until the lab's usage meets `condition`.
    func eventually(_ condition: (Usage) -> Bool) -> Bool {
        for _ in 0..<400 {
            if let usage = try? usage(), condition(usage) { return true }
            usleep(50_000)
        }
        return (try? usage()).map(condition) ?? false
    }

    /// ^C, as a teacher stops it; killed if it has not stopped 10 s later.
    func stop() {
        guard process.processIdentifier != 0 else { return }  // it never started
        if process.isRunning { process.interrupt() }
        for _ in 0..<200 where process.isRunning { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory + "/lab")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// The clients of the soak, each kind in turn, eight at a time.
struct SoakClients: Sendable {
    struct Tally: Sendable, CustomStringConvertible {
        var connections = 0
        var signedIn = 0
        var refused = 0
        var curlFailures: [String] = []

        var description: String { "\(connections) connections: \(signedIn) signed in, \(refused) refused the forgery" }
    }

    enum Kind: CaseIterable {
        case signIn, signInThroughConnect, refuseTheForgery, abortMidHandshake, halfClose, tlsGarbage, httpGarbage, profilePage, bigPost, slowConnect
    }

    let port: UInt16
    let client: TLSClient
    let curl: String?

    init(port: UInt16) throws {
        self.port = port
        client = try TLSClient(host: "bank.test", trustStore: DeviceTrustStore(system: []), verifyDate: Date())
        curl = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/curl" }
            .first(where: FileManager.default.isExecutableFile)
    }

    static let login = HTTPMessage.request(
        "POST", "/login", host: "bank.test", body: Array("username=alice&password=hunter2".utf8), contentType: "application/x-www-form-urlencoded")
    /// Past the 64 KiB of plaintext the proxy keeps from a connection.
    static let bigPost = HTTPMessage.request(
        "POST", "/login", host: "bank.test", body: Array(("username=alice&password=hunter2&padding=" + String(repeating: "x", count: 70_000)).utf8),
        contentType: "application/x-www-form-urlencoded")
    /// The start of a ClientHello that never comes whole.
    static let halfAClientHello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03]

    /// `count` connections of every kind in turn, eight at a time, with `held` connections that send half a
    /// ClientHello and wait (until the lab's timeout drops them) and, when curl is installed, 20 real curls alongside.
    func storm(_ count: Int, held: Int) -> Tally {
        // Spread over eight addresses, as a class's devices are: the lab caps the connections one address holds.
        let holders = (0..<held).compactMap { index in try? RawConnection(port: port, from: "127.0.0.\(2 + index % 8)") }
        for holder in holders { holder.send(Self.halfAClientHello) }
        let tally = LockedTally()
        let curlRuns = curl == nil ? 0 : 20
        onThreads(8 + (curlRuns > 0 ? 1 : 0)) { worker in
            if worker == 8 {
                for _ in 0..<curlRuns { tally.update { $0.curlFailures += runCurl().map { [$0] } ?? [] } }
                return
            }
            var random = SplitMix64(seed: UInt64(worker))
            for index in stride(from: worker, to: count, by: 8) {
                let kind = Kind.allCases[index % Kind.allCases.count]
                let outcome = connect(kind, random: &random)
                tally.update { tally in
                    if outcome == .signedIn { tally.signedIn += 1 }
                    if outcome == .refused { tally.refused += 1 }
                }
            }
        }
        for holder in holders {
            holder.readToEnd()  // the lab hangs up on a silent client after its timeout
            holder.close()
        }
        return tally.update { tally in
            tally.connections = count + holders.count + curlRuns
            return tally
        }
    }

    enum Outcome { case signedIn, refused, other }

    func connect(_ kind: Kind, random: inout SplitMix64) -> Outcome {
        switch kind {
        case .signIn: return exchange(.direct(port: port), Self.login, accept: true)
        case .signInThroughConnect: return exchange(.httpProxy(port: port), Self.login, accept: true)
        case .bigPost: return exchange(.httpProxy(port: port), Self.bigPost, accept: true)
        case .refuseTheForgery: return exchange(.direct(port: port), Self.login, accept: false)
        default: break
        }
        guard let raw = try? RawConnection(port: port) else { return .other }
        defer { raw.close() }
        switch kind {
        case .abortMidHandshake:
            raw.send(Self.halfAClientHello)
            raw.reset()
            return .other
        case .halfClose:
            raw.send(Self.halfAClientHello)
            raw.finishSending()
        case .tlsGarbage:
            raw.send([0x16, 0x03, 0x01, 0x08, 0x00] + (0..<2048).map { _ in UInt8.random(in: 0...255, using: &random) })
            raw.finishSending()
        case .httpGarbage:
            raw.send((0..<2048).map { _ in UInt8.random(in: 0...255, using: &random) } + Array("\r\n\r\n".utf8))
        case .profilePage:
            raw.send(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        case .slowConnect:
            for byte in "CONNECT elsewhere.test:443 HTTP/1.1\r\n\r\n".utf8 {
                raw.send([byte])
                usleep(5_000)
            }
        default: preconditionFailure("TLS kinds are handled above")
        }
        raw.readToEnd()
        return .other
    }

    func exchange(_ route: TLSClient.Route, _ request: HTTPMessage, accept: Bool) -> Outcome {
        let result = client.exchange(route, request: request, log: EventLog()) { _, _ in .init(accept: accept, verdict: accept, summary: "") }
        if result.response?.startLine.hasPrefix("HTTP/1.1 200") == true { return .signedIn }
        return result.verdict == false ? .refused : .other
    }

    /// One sign-in, as the lab's users make them.
    func signIn() -> Bool { exchange(.httpProxy(port: port), Self.login, accept: true) == .signedIn }

    /// Real curl through the lab, as `curl -k` in its commands: nil when it signed in, else what it printed.
    func runCurl() -> String? {
        guard let curl else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: curl)
        process.arguments = [
            "-k", "-sS", "--max-time", "20", "--proxy", "http://127.0.0.1:\(port)", "-d", "username=alice&password=hunter2", "https://bank.test/login",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return "\(error)" }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 && text.contains("Welcome back, alice") ? nil : "exit \(process.terminationStatus): \(text)"
    }
}

struct LabDidNotStart: Error {
    let output: String
}

private final class LockedTally: @unchecked Sendable {
    private let lock = NSLock()
    private var tally = SoakClients.Tally()

    func update<T>(_ change: (inout SoakClients.Tally) -> T) -> T { lock.withLock { change(&tally) } }
}
