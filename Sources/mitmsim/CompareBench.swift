import ArgumentParser
import Benchmarks

extension MitmSim {
    struct CompareBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "compare", abstract: "Time one `compare` of a lesson: every client model a real run, and ms per client.")

        @OptionGroup var options: ScenarioOptions

        @Argument(help: "A scenario id or file (default: the first in the catalog).")
        var scenario: String?

        @Option(help: "Timed comparisons (after one untimed warm-up).")
        var runs: Int = 5

        func validate() throws {
            guard (1...100).contains(runs) else { throw BadInput("--runs must be 1...100") }
        }

        func run() throws {
            let lesson = try scenario.map(options.load) ?? options.first()
            guard let lesson else { throw BadInput("\(options.scenarios): no scenarios") }
            try Bench.report { try CompareBenchmark.run(scenario: lesson, runs: runs) }
        }
    }
}
