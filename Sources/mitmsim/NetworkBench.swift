import ArgumentParser
import Foundation
import LoopbackTLS
import PKI
import Policies

extension MitmSim {
    /// Real exchanges on 127.0.0.1, straight to the origin and through the forging proxy (and through
    /// sslsplit and mitmdump when installed), alternating so all see the same machine; ratios compare
    /// them within this one run.
    struct NetworkBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "network",
            abstract: "Exchange latency, connections per second and a large relay, direct vs through the proxy.")

        @Option(help: "Full exchanges per path (connect, handshakes, login request, response, close).")
        var exchanges: Int = 400

        @Option(help: "Downloads per path for the relay figure.")
        var relays: Int = 11

        @Option(name: .customLong("relay-mib"), help: "Size of each download in MiB.")
        var relayMiB: Int = 10

        @Option(help: "TLS 1.3 session tickets the origin sends per handshake (lessons send none; most public servers send 2).")
        var originTickets: Int = 0

        func validate() throws {
            guard (1...100_000).contains(exchanges), (1...1000).contains(relays), (1...256).contains(relayMiB), (0...8).contains(originTickets) else {
                throw BadInput("--exchanges must be 1...100000, --relays 1...1000, --relay-mib 1...256 and --origin-tickets 0...8")
            }
        }

        func run() throws {
            let world = try BenchWorld()
            let log = EventLog()
            let origin = try OriginServer(world.origin(sessionTickets: originTickets), log: log)
            defer { origin.stop() }
            let proxy = try InterceptingProxy(attack: .forge(authority: world.attacker), routes: ["bank.test": origin.port], log: log, factory: world.factory)
            defer { proxy.stop() }
            let others = try ["sslsplit", "mitmdump"].compactMap { try ExternalProxy.start($0, authority: world.attacker, originPort: origin.port) }
            defer { others.forEach { $0.stop() } }
            let client = try TLSClient(host: "bank.test", trustStore: [world.root.certificate, world.attacker.certificate], verifyDate: world.factory.now)
            let paths: [(name: String, port: UInt16)] = [("direct", origin.port), ("mitmsim", proxy.port)] + others.map { ($0.name, $0.port) }

            /// Nil when the exchange returned the bank's answer; otherwise why not.
            func exchange(_ port: UInt16, _ request: HTTPMessage) -> String? {
                let result = client.exchange(.direct(port: port), request: request, log: EventLog()) { trust in
                    let evaluation = SecurityPolicy.defaultPolicy.evaluate(serverTrust: trust, forDomain: "bank.test")
                    return .init(accept: evaluation.isTrusted, verdict: evaluation.isTrusted, summary: evaluation.verdict)
                }
                return result.response?.startLine == "HTTP/1.1 200 OK" ? nil : result.failure ?? result.response?.startLine ?? "no response"
            }
            func timed(_ path: (name: String, port: UInt16), _ request: HTTPMessage) throws -> Double {
                var failure: String?
                let milliseconds = Stopwatch.milliseconds { failure = exchange(path.port, request) }
                if let failure { throw BadInput("an exchange through \(path.name) failed: \(failure)") }
                return milliseconds
            }

            // Other tools take a moment to listen; wait (bounded) until each answers.
            for (name, port) in paths where (0..<100).first(where: { _ in exchange(port, login) == nil || { usleep(100_000); return false }() }) == nil {
                throw BadInput("\(name) did not answer on 127.0.0.1:\(port)")
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
            print("mitmsim bench network: \(exchanges) exchanges (in alternating blocks of 25) and \(relays) downloads of \(relayMiB) MiB per path; "
                  + "\(ProcessInfo.processInfo.activeProcessorCount) cores; every path forges with the same CA for the same origin, "
                  + "which sends \(originTickets) session tickets per handshake")
            print(Stopwatch.row("", paths.map { $0.0.padding(toLength: 10, withPad: " ", startingAt: 0) }.joined(separator: "  ")))
            print(Stopwatch.row("full exchange, median ms", medians.map { fixed($0) }.joined(separator: "  ")))
            print(Stopwatch.row("new connections per second (1 client)", rates.map { fixed($0, 1) }.joined(separator: "  ")))
            print(Stopwatch.row("\(relayMiB) MiB relay, median MB/s", relayMedians.map { fixed($0, 0) }.joined(separator: "  ")))
            print("ratios and targets:")
            print("  mitmsim exchange \(fixed(medians[1], 2)) ms (target ≤ 4 ms proxied; direct \(fixed(medians[0], 2)) ms, target ≤ 3)")
            print("  mitmsim relay / direct \(ratio(relayMedians[1] / relayMedians[0])) (target ≥ 0.70)")
            print("  mitmsim connections/s / sslsplit's anchor figure (276/s) \(ratio(rates[1] / 276)) (target ≥ 1.30)")
            for (index, other) in paths.enumerated().dropFirst(2) {
                print("  mitmsim / \(other.0) measured here: connections/s \(ratio(rates[1] / rates[index])), "
                      + "exchange time \(ratio(medians[1] / medians[index])), relay \(ratio(relayMedians[1] / relayMedians[index]))")
            }
            if others.contains(where: { $0.name == "sslsplit" }) {
                print("  note: sslsplit sets no TCP_NODELAY, so with this client each request waits for a delayed ACK (about 40 ms, "
                      + "perf-anchors.md §5.1); its anchor on this machine kind, with curl and s_time: 276 conn/s, 5.51 ms")
            }
            if others.count < 2 {
                print("  (sslsplit and mitmdump are compared when on PATH: apt-get install sslsplit; pip install mitmproxy. "
                      + "Their figures on this machine kind: sslsplit 276 conn/s, 5.51 ms; mitmdump 134 conn/s, 8.96 ms.)")
            }
        }

        private var login: HTTPMessage {
            .request("POST", "/login", host: "bank.test", body: Array("username=alice&password=hunter2".utf8), contentType: "application/x-www-form-urlencoded")
        }

        private func fixed(_ value: Double, _ digits: Int = 3) -> String { String(format: "%10.\(digits)f", value) }
        private func ratio(_ value: Double) -> String { String(format: "%.2f×", value) }
    }
}
