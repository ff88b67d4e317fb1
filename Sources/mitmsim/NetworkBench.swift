import ArgumentParser
import Benchmarks
import Foundation
import LoopbackTLS

extension MitmSim {
    /// Real exchanges on 127.0.0.1, direct and through the forging proxy (and sslsplit and mitmdump when installed).
    struct NetworkBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "network",
            abstract: "Exchange latency, connections per second, CPU per connection, a large relay and the lab's memory, direct vs through the proxy.")

        @Option(help: "Full exchanges per path (connect, handshakes, login request, response, close).")
        var exchanges: Int = 400

        @Option(help: "Downloads per path for the relay figure.")
        var relays: Int = 11

        @Option(name: .customLong("relay-mib"), help: "Size of each download in MiB.")
        var relayMiB: Int = 10

        @Option(help: "TLS 1.3 session tickets the origin sends per handshake (lessons send none; most public servers send 2).")
        var originTickets: Int = 0

        @Option(name: .customLong("load-seconds"), help: "Seconds an external client drives each path per round, for connections/s and CPU.")
        var loadSeconds: Double = 5

        @Option(name: .customLong("load-rounds"), help: "Rounds of the external client over all paths, interleaved.")
        var loadRounds: Int = 3

        @Option(name: .customLong("lab-connections"), help: "Connections through a running lab before its memory is read again.")
        var labConnections: Int = 10_000

        func validate() throws {
            guard (1...100_000).contains(exchanges), (1...1000).contains(relays), (1...256).contains(relayMiB), (0...8).contains(originTickets),
                (0.1...600).contains(loadSeconds), (1...100).contains(loadRounds), (1...1_000_000).contains(labConnections)
            else {
                throw BadInput(
                    "--exchanges must be 1...100000, --relays 1...1000, --relay-mib 1...256, --origin-tickets 0...8, --load-seconds 0.1...600, "
                        + "--load-rounds 1...100 and --lab-connections 1...1000000")
            }
        }

        func run() throws {
            // The external client is this executable again, in a process of its own, so its CPU is not counted.
            let load = NetworkBenchmark.Load(
                client: ["/proc/self/exe", "bench", LoadClientCommand.configuration.commandName ?? ""], seconds: loadSeconds, rounds: loadRounds,
                labConnections: labConnections)
            try Bench.report {
                try NetworkBenchmark.run(exchanges: exchanges, relays: relays, relayMiB: relayMiB, originTickets: originTickets, load: load)
            }
        }
    }

    /// The external client `bench network` drives each path with; prints "connections failures seconds median-ms".
    struct LoadClientCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "load-client", abstract: "New TLS connections to 127.0.0.1:PORT, one GET each (used by bench network).", shouldDisplay: false)

        @Option var port: UInt16
        @Option var host = "bank.test"
        @Option var connections = 1_000_000
        @Option var seconds = 5.0
        @Option var concurrency = 1

        func validate() throws {
            guard (1...10_000_000).contains(connections), (0.1...3600).contains(seconds), (1...64).contains(concurrency) else {
                throw BadInput("--connections must be 1...10000000, --seconds 0.1...3600 and --concurrency 1...64")
            }
        }

        func run() throws {
            print(try LoadClient.run(port: port, host: host, connections: connections, seconds: seconds, concurrency: concurrency).line)
        }
    }
}
