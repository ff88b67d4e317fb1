import ArgumentParser
import Benchmarks
import Foundation

extension MitmSim {
    struct MatrixBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "matrix",
            abstract: "Time the full default matrix (every cell a real run) and its cells per second, or with --versions the versions matrix.")

        @OptionGroup var options: ScenarioOptions

        @Option(help: "Timed runs of the whole matrix (after one untimed warm-up).")
        var runs: Int = 5

        @Flag(help: "Time `matrix --versions` (every AFNetworking release's default policy × every attack): ms per matrix and per cell.")
        var versions = false

        @Option(help: "Worker threads.")
        var workers: Int = ProcessInfo.processInfo.activeProcessorCount

        func validate() throws {
            guard (1...100).contains(runs), (1...64).contains(workers) else { throw BadInput("--runs must be 1...100 and --workers 1...64") }
        }

        func run() throws {
            guard let scenario = try options.first() else { throw BadInput("\(options.scenarios): no scenarios") }
            try Bench.report {
                try versions
                    ? MatrixBenchmark.versions(scenario: scenario, runs: runs, workers: workers)
                    : MatrixBenchmark.run(scenario: scenario, runs: runs, workers: workers)
            }
        }
    }
}
