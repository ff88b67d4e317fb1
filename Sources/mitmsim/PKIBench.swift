import ArgumentParser
import Benchmarks

extension MitmSim {
    struct PKIBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pki", abstract: "Medians for key generation, issuing, forging, trust and policy evaluation.")

        @Option(help: "Timed runs per operation (after 20 untimed warm-up runs).")
        var iterations: Int = 500

        func validate() throws {
            guard (1...100_000).contains(iterations) else { throw BadInput("--iterations must be between 1 and 100000") }
        }

        func run() throws {
            try Bench.report { try PKIBenchmark.run(iterations: iterations) }
        }
    }
}
