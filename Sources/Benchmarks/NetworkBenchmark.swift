import Foundation
import LoopbackTLS
import PKI
import Policies

/// Real exchanges on 127.0.0.1, straight to the origin and through the forging proxy (and through sslsplit
/// and mitmdump when installed), alternating so all see the same machine; ratios compare them within one run.
public enum NetworkBenchmark {
    /// A path the client's exchanges take: straight to the origin or through one proxy.
    private typealias Path = (name: String, port: UInt16)

    /// The report: a header, exchange latency, connections per second and relay throughput per path, then
    /// the ratios and targets; then what an external client (a process of its own, so its CPU is not counted)
    /// measures per path: connections per second, latency and the CPU each connection costs; then the
    /// memory a running lab gains over `load.labConnections` connections.
    ///
    /// - Parameters:
    ///   - exchanges: full exchanges per path (connect, handshakes, login request, response, close).
    ///   - relays: downloads per path for the relay figure, each `relayMiB` MiB.
    ///   - originTickets: TLS 1.3 session tickets the origin sends per handshake.
    ///   - load: the external client's settings, for connections per second, CPU per connection and the lab's memory.
    public static func run(exchanges: Int, relays: Int, relayMiB: Int, originTickets: Int, load: Load) throws -> [String] {
        // First, in a process whose heap nothing else has grown yet.
        let labMemory = try LabMemory.measure(load)
        let world = try BenchWorld()
        // Set up as a lab runs them all day: the log keeps no events and the proxy no flows.
        let log = EventLog(keepsEvents: false)
        let origin = try OriginServer(world.origin(sessionTickets: originTickets), log: log)
        defer { origin.stop() }
        let proxy = try InterceptingProxy(
            attack: .forge(authority: world.attacker), routes: ["bank.test": origin.port], log: log, factory: world.factory, keepsFlows: false)
        defer { proxy.stop() }
        let others = try ["sslsplit", "mitmdump"].compactMap { try ExternalProxy.start($0, authority: world.attacker, originPort: origin.port) }
        defer { for other in others { other.stop() } }
        let client = try TLSClient(
            host: "bank.test", trustStore: DeviceTrustStore(system: [world.root.certificate], userInstalled: [world.attacker.certificate]),
            verifyDate: world.factory.now)
        let paths: [Path] = [("direct", origin.port), ("mitmsim", proxy.port)] + others.map { ($0.name, $0.port) }
        let login = HTTPMessage.request(
            "POST", "/login", host: "bank.test", body: Array("username=alice&password=hunter2".utf8),
            contentType: "application/x-www-form-urlencoded")

        /// Nil when the exchange returned the bank's answer; otherwise why not.
        func exchange(_ port: UInt16, _ request: HTTPMessage) -> String? {
            let result = client.exchange(.direct(port: port), request: request, log: EventLog()) { trust, _ in
                let evaluation = SecurityPolicy.defaultPolicy.evaluate(serverTrust: trust, forDomain: "bank.test")
                return .init(accept: evaluation.isTrusted, verdict: evaluation.isTrusted, summary: evaluation.verdict)
            }
            return result.response?.startLine == "HTTP/1.1 200 OK" ? nil : result.failure ?? result.response?.startLine ?? "no response"
        }
        func timed(_ path: Path, _ request: HTTPMessage) throws -> Double {
            var failure: String?
            let milliseconds = Stopwatch.milliseconds { failure = exchange(path.port, request) }
            if let failure { throw BenchmarkError.exchangeFailed(path: path.name, reason: failure) }
            return milliseconds
        }

        // Other tools take a moment to listen; wait (up to ten seconds) until each answers.
        for (name, port) in paths {
            var attempts = 0
            while exchange(port, login) != nil {
                attempts += 1
                guard attempts < 100 else { throw BenchmarkError.noAnswer(name: name, port: port) }
                usleep(100_000)
            }
        }
        for _ in 0..<20 { for path in paths { _ = try timed(path, login) } }
        // Paths alternate in blocks: back-to-back exchanges stay warm (a slow path interleaved one by one
        // would leave the CPUs idle before every other exchange), and all paths share the run's drift.
        var latencies = [[Double]](repeating: [], count: paths.count)
        for block in stride(from: 0, to: exchanges, by: 25) {
            for (index, path) in paths.enumerated() {
                for _ in block..<min(block + 25, exchanges) { latencies[index].append(try timed(path, login)) }
            }
        }
        let download = HTTPMessage.request("GET", "/bytes/\(relayMiB << 20)", host: "bank.test")
        var throughputs = [[Double]](repeating: [], count: paths.count)
        for _ in 0..<relays {
            for (index, path) in paths.enumerated() { throughputs[index].append(Double(relayMiB << 20) / 1e6 / (try timed(path, download) / 1e3)) }
        }

        let driven = try drive(paths, others: others, load: load)

        let medians = latencies.map(Stopwatch.median)
        let rates = latencies.map { Double($0.count) / ($0.reduce(0, +) / 1e3) }
        let relayMedians = throughputs.map(Stopwatch.median)
        var lines = [
            "mitmsim bench network: \(exchanges) exchanges (in alternating blocks of 25) and \(relays) downloads of \(relayMiB) MiB per path; "
                + "\(Stopwatch.cores) cores; every proxied path forges with the same CA for the same origin, "
                + "which sends \(originTickets) session tickets per handshake"
                + (originTickets > 0 ? " (mitmsim's proxy resumes with them upstream once it has a forgery for the host)" : "")
                + "; mitmsim's proxy and origin keep no events and no flows, as a lab's",
            Stopwatch.row("", paths.map { $0.name.padding(toLength: 10, withPad: " ", startingAt: 0) }.joined(separator: "  ")),
            Stopwatch.row("full exchange, median ms", medians.map { fixed($0) }.joined(separator: "  ")),
            Stopwatch.row("new connections per second (1 client)", rates.map { fixed($0, 1) }.joined(separator: "  ")),
            Stopwatch.row("\(relayMiB) MiB relay, median MB/s", relayMedians.map { fixed($0, 0) }.joined(separator: "  ")),
            "ratios and targets:",
            "  mitmsim exchange \(fixed(medians[1], 2)) ms (target ≤ 4 ms proxied; direct \(fixed(medians[0], 2)) ms, target ≤ 3)",
            "  mitmsim relay / direct \(ratio(relayMedians[1] / relayMedians[0])) (target ≥ 0.75)",
            "  mitmsim connections/s / sslsplit's anchor figure (276/s) \(ratio(rates[1] / 276)) (target ≥ 1.30)",
        ]
        for (index, other) in paths.enumerated().dropFirst(2) {
            lines.append(
                "  mitmsim / \(other.name) measured here: connections/s \(ratio(rates[1] / rates[index])), "
                    + "exchange time \(ratio(medians[1] / medians[index])), relay \(ratio(relayMedians[1] / relayMedians[index]))")
        }
        if others.contains(where: { $0.name == "sslsplit" }) {
            lines.append(
                "  note: sslsplit sets no TCP_NODELAY, so with this client each request waits for a delayed ACK (about 40 ms, "
                    + "perf-anchors.md §5.1); its anchor on this machine kind, with curl and s_time: 276 conn/s, 5.51 ms")
        }
        if others.count < 2 {
            lines.append(
                "  (sslsplit and mitmdump are compared when on PATH: apt-get install sslsplit; pip install mitmproxy. "
                    + "Their figures on this machine kind: sslsplit 276 conn/s, 5.51 ms; mitmdump 134 conn/s, 8.96 ms.)")
        }
        return lines + driven.report(paths: paths.map(\.name), load: load) + labMemory.report
    }

    /// How the external client drives the paths.
    public struct Load: Sendable {
        /// Starts a load-client process: an executable and its first arguments (`LoadClient` behind them).
        public var client: [String]
        /// Seconds per path in each round.
        public var seconds: Double
        /// Rounds over all paths, interleaved, so all see the same drift of the machine.
        public var rounds: Int
        /// Connections through the lab between its two memory readings.
        public var labConnections: Int

        public init(client: [String], seconds: Double, rounds: Int, labConnections: Int) {
            self.client = client
            self.seconds = seconds
            self.rounds = rounds
            self.labConnections = labConnections
        }
    }

    /// What the external client measured on each path, in the same order as the paths.
    private struct Driven {
        /// One client, connection after connection: latency, rate and CPU.
        var single: [LoadClient.Tally]
        /// Two clients at once: the rate a path sustains when both cores have work.
        var pair: [LoadClient.Tally]
        /// CPU seconds, during the single client's runs, of the process that does the path's work: this one for
        /// direct and mitmsim, the other proxy's own for the rest.
        var cpu: [Double]

        static func rate(_ tally: LoadClient.Tally) -> Double { Double(tally.connections) / tally.seconds }
        func cpuMilliseconds(_ index: Int) -> Double { cpu[index] * 1e3 / Double(max(1, single[index].connections)) }

        func report(paths: [String], load: Load) -> [String] {
            let proxy = cpuMilliseconds(1) - cpuMilliseconds(0)
            let clientCPU = single[0].cpuSeconds * 1e3 / Double(max(1, single[0].connections))
            func trimmed(_ value: Double, _ digits: Int) -> String { fixed(value, digits).trimmingCharacters(in: .whitespaces) }
            var lines = [
                "external client (another process: new connections one after another on each client, SNI bank.test, GET /; "
                    + "\(load.rounds) rounds of \(trimmed(load.seconds, 1)) s per path and client count, interleaved):",
                Stopwatch.row("", paths.map { $0.padding(toLength: 10, withPad: " ", startingAt: 0) }.joined(separator: "  ")),
                Stopwatch.row("connections per second, 1 client", single.map { fixed(Self.rate($0), 1) }.joined(separator: "  ")),
                Stopwatch.row("connections per second, 2 clients at once", pair.map { fixed(Self.rate($0), 1) }.joined(separator: "  ")),
                Stopwatch.row("median ms per connection, 1 client", single.map { fixed($0.medianMilliseconds) }.joined(separator: "  ")),
                Stopwatch.row("process CPU ms per connection", paths.indices.map { fixed(cpuMilliseconds($0)) }.joined(separator: "  ")),
                "  (1 client; direct: the origin's; mitmsim: its process, origin included; others: their own processes)",
                "  mitmsim proxy CPU per proxied connection \(trimmed(proxy, 2)) ms = \(trimmed(cpuMilliseconds(1), 2)) minus the origin's "
                    + "\(trimmed(cpuMilliseconds(0), 2)) per direct connection (target ≤ 1.5; for scale, not a floor: one server and one "
                    + "client side as the direct path's origin and client pay them, \(trimmed(cpuMilliseconds(0) + clientCPU, 2)), "
                    + "which includes the origin's page and the client's process, and leaves out what a resumed upstream session saves)",
                "  mitmsim median / direct median, 1 client: \(ratio(single[1].medianMilliseconds / single[0].medianMilliseconds)) (target ≤ 1.50×)",
            ]
            if let mitmdump = paths.firstIndex(of: "mitmdump") {
                lines.append(
                    "  mitmsim connections/s / mitmdump's, measured here: 1 client \(ratio(Self.rate(single[1]) / Self.rate(single[mitmdump]))), "
                        + "2 at once \(ratio(Self.rate(pair[1]) / Self.rate(pair[mitmdump]))) (target, 1 client: ≥ 4.00×)")
            } else {
                lines.append(
                    "  mitmsim connections/s (1 client) / mitmdump's reference figure (134/s): \(ratio(Self.rate(single[1]) / 134)) "
                        + "(target ≥ 4.00×; mitmdump is not on PATH)")
            }
            if !["sslsplit", "mitmdump"].allSatisfy(paths.contains) {
                lines.append(
                    "  reference figures, not measured in this run (perf-anchors.md: this machine kind, 2026-11-23, tlsload, a C client "
                        + "that connects as this one does, 1 client): sslsplit 20.8 conn/s, 3.4–3.6 ms CPU per connection; "
                        + "mitmdump 130–138 conn/s, 6.2–6.6 ms")
            }
            return lines
        }
    }

    /// Drives every path with the external client, round after round, reading the CPU of the process doing the work.
    private static func drive(_ paths: [Path], others: [ExternalProxy], load: Load) throws -> Driven {
        let empty = Array(repeating: LoadClient.Tally(), count: paths.count)
        var driven = Driven(single: empty, pair: empty, cpu: Array(repeating: 0, count: paths.count))
        var medians = [[Double]](repeating: [], count: paths.count)
        func add(_ tally: LoadClient.Tally, to total: inout LoadClient.Tally, path: String) throws {
            guard tally.connections > 0 else { throw BenchmarkError.exchangeFailed(path: path, reason: "the external client completed no connection") }
            total.connections += tally.connections
            total.failures += tally.failures
            total.seconds += tally.seconds
            total.cpuSeconds += tally.cpuSeconds
        }
        for _ in 0..<load.rounds {
            for (index, path) in paths.enumerated() {
                let process = index < 2 ? nil : others[index - 2].processIdentifier
                let before = try ProcessCPU.seconds(process)
                let tally = try LoadClientProcess.run(load.client, port: path.port, seconds: load.seconds)
                driven.cpu[index] += try ProcessCPU.seconds(process) - before
                try add(tally, to: &driven.single[index], path: path.name)
                medians[index].append(tally.medianMilliseconds)
                try add(LoadClientProcess.run(load.client, port: path.port, seconds: load.seconds, concurrency: 2), to: &driven.pair[index], path: path.name)
            }
        }
        for index in paths.indices { driven.single[index].medianMilliseconds = Stopwatch.median(medians[index]) }
        return driven
    }

    private static func fixed(_ value: Double, _ digits: Int = 3) -> String { String(format: "%10.\(digits)f", value) }
    private static func ratio(_ value: Double) -> String { String(format: "%.2f×", value) }
}
