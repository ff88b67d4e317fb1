import Foundation
import Simulation

/// The full default matrix, every cell a real run: seconds per matrix and cells per second.
public enum MatrixBenchmark {
    /// The report for `scenario`'s world: one untimed warm-up, then the median of `runs` timed matrices.
    public static func run(scenario: Scenario, runs: Int, workers: Int) throws -> [String] {
        var cells = try Matrix(scenario: scenario, workers: workers).cells.count
        let seconds = try (0..<runs).map { _ in
            try Stopwatch.milliseconds { cells = try Matrix(scenario: scenario, workers: workers).cells.count } / 1e3
        }
        let median = Stopwatch.median(seconds)
        return [
            "mitmsim bench matrix: world of '\(scenario.id)', \(cells) cells, \(workers) workers, \(Stopwatch.cores) cores, median of \(runs) runs",
            Stopwatch.row("full matrix, seconds", String(format: "%.3f (min %.3f, max %.3f)", median, seconds.min() ?? .nan, seconds.max() ?? .nan)),
            Stopwatch.row("cells per second", String(format: "%.0f", Double(cells) / median)),
            Stopwatch.row("target", String(format: "≥ 300 cells in ≤ 1.5 s: %.2f of the time budget", median / 1.5)),
        ]
    }
}
