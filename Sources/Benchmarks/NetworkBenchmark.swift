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
    /// the ratios and targets.
    ///
    /// - Parameters:
    ///   - exchanges: full exchanges per path (connect, handshakes, login request, response, close).
    ///   - relays: downloads per path for the relay figure, each `relayMiB` MiB.
    ///   - originTickets: TLS 1.3 session tickets the origin sends per handshake.
    public static func run(exchanges: Int, relays: Int, relayMiB: Int, originTickets: Int) throws -> [String] {
        let world = try BenchWorld()
        let log = EventLog()
        let origin = try OriginServer(world.origin(sessionTickets: originTickets), log: log)
        defer { origin.stop() }
        let proxy = try InterceptingProxy(attack: .forge(authority: world.attacker), routes: ["bank.test": origin.port], log: log, factory: world.factory)
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
            let result = client.exchange(.direct(port: port), request: request, log: EventLog()) { trust in
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

        let medians = latencies.map(Stopwatch.median)
        let rates = latencies.map { Double($0.count) / ($0.reduce(0, +) / 1e3) }
        let relayMedians = throughputs.map(Stopwatch.median)
        var lines = [
            "mitmsim bench network: \(exchanges) exchanges (in alternating blocks of 25) and \(relays) downloads of \(relayMiB) MiB per path; "
                + "\(Stopwatch.cores) cores; every proxied path forges with the same CA for the same origin, "
                + "which sends \(originTickets) session tickets per handshake",
            Stopwatch.row("", paths.map { $0.name.padding(toLength: 10, withPad: " ", startingAt: 0) }.joined(separator: "  ")),
            Stopwatch.row("full exchange, median ms", medians.map { fixed($0) }.joined(separator: "  ")),
            Stopwatch.row("new connections per second (1 client)", rates.map { fixed($0, 1) }.joined(separator: "  ")),
            Stopwatch.row("\(relayMiB) MiB relay, median MB/s", relayMedians.map { fixed($0, 0) }.joined(separator: "  ")),
            "ratios and targets:",
            "  mitmsim exchange \(fixed(medians[1], 2)) ms (target ≤ 4 ms proxied; direct \(fixed(medians[0], 2)) ms, target ≤ 3)",
            "  mitmsim relay / direct \(ratio(relayMedians[1] / relayMedians[0])) (target ≥ 0.70)",
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
        return lines
    }

    private static func fixed(_ value: Double, _ digits: Int = 3) -> String { String(format: "%10.\(digits)f", value) }
    private static func ratio(_ value: Double) -> String { String(format: "%.2f×", value) }
}
