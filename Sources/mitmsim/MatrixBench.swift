import ArgumentParser
import Foundation
import Simulation

extension MitmSim {
    struct MatrixBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "matrix", abstract: "Time the full default matrix (every cell a real run) and its cells per second.")

        @OptionGroup var options: ScenarioOptions

        @Option(help: "Timed runs of the whole matrix (after one untimed warm-up).")
        var runs: Int = 5

        @Option(help: "Worker threads.")
        var workers: Int = ProcessInfo.processInfo.activeProcessorCount

        func validate() throws {
            guard (1...100).contains(runs), (1...64).contains(workers) else { throw BadInput("--runs must be 1...100 and --workers 1...64") }
        }

        func run() throws {
            guard let scenario = try options.loadAll().first else { throw BadInput("\(options.scenarios): no scenarios") }
            var cells = try Matrix(scenario: scenario, workers: workers).cells.count
            let seconds = try (0..<runs).map { _ in
                try Stopwatch.milliseconds { cells = try Matrix(scenario: scenario, workers: workers).cells.count } / 1e3
            }
            let median = Stopwatch.median(seconds)
            print("mitmsim bench matrix: world of '\(scenario.id)', \(cells) cells, \(workers) workers, "
                  + "\(ProcessInfo.processInfo.activeProcessorCount) cores, median of \(runs) runs")
            print(Stopwatch.row("full matrix, seconds", String(format: "%.3f (min %.3f, max %.3f)", median, seconds.min()!, seconds.max()!)))
            print(Stopwatch.row("cells per second", String(format: "%.0f", Double(cells) / median)))
            print(Stopwatch.row("target", String(format: "≥ 300 cells in ≤ 1.5 s: %.2f of the time budget", median / 1.5)))
        }
    }
}
