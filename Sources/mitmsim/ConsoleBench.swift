import ArgumentParser
import Benchmarks

extension MitmSim {
    struct ConsoleBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "console", abstract: "Time from a policy key to the redrawn frame (re-run included), and a plain redraw.")

        @OptionGroup var options: ScenarioOptions

        @Option(help: "Key presses timed per figure.")
        var presses: Int = 200

        func validate() throws {
            guard (1...10_000).contains(presses) else { throw BadInput("--presses must be 1...10000") }
        }

        func run() throws {
            let catalog = try options.loadAll()
            try Bench.report { try ConsoleBenchmark.run(catalog: catalog, presses: presses) }
        }
    }
}
