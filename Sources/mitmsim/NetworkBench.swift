import ArgumentParser
import Benchmarks

extension MitmSim {
    /// Real exchanges on 127.0.0.1, direct and through the forging proxy (and sslsplit and mitmdump when installed).
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
            try Bench.report {
                try NetworkBenchmark.run(exchanges: exchanges, relays: relays, relayMiB: relayMiB, originTickets: originTickets)
            }
        }
    }
}
