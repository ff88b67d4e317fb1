import Foundation
import Policies
import Simulation

/// A matrix timed whole, every cell a real run: the full default matrix, or every release's default policy.
public enum MatrixBenchmark {
    /// The full default matrix of `scenario`'s world: one untimed warm-up, then the median of `runs` timed matrices.
    public static func run(scenario: Scenario, runs: Int, workers: Int) throws -> [String] {
        let (cells, seconds) = try time(scenario, .settings(.v4), runs: runs, workers: workers)
        let median = Stopwatch.median(seconds)
        return [
            "mitmsim bench matrix: world of '\(scenario.id)', \(cells) cells, \(workers) workers, \(Stopwatch.cores) cores, median of \(runs) runs",
            Stopwatch.row("full matrix, seconds", String(format: "%.3f (min %.3f, max %.3f)", median, seconds.min() ?? .nan, seconds.max() ?? .nan)),
            Stopwatch.row("cells per second", String(format: "%.0f", Double(cells) / median)),
            Stopwatch.row("target", String(format: "≥ 300 cells in ≤ 1.5 s: %.2f of the time budget", median / 1.5)),
        ]
    }

    /// The versions matrix (every AFNetworking release's default policy × every attack) of `scenario`'s world,
    /// timed as `run` times the full one, in milliseconds.
    public static func versions(scenario: Scenario, runs: Int, workers: Int) throws -> [String] {
        let (cells, seconds) = try time(scenario, .versions, runs: runs, workers: workers)
        let milliseconds = seconds.map { $0 * 1e3 }
        let median = Stopwatch.median(milliseconds)
        return [
            "mitmsim bench matrix --versions: world of '\(scenario.id)', \(cells) cells (\(AFNetworkingVersion.allCases.count) releases × "
                + "\(Matrix.Column.allCases.count) attacks), \(workers) workers, \(Stopwatch.cores) cores, median of \(runs) runs",
            Stopwatch.row(
                "versions matrix, ms", String(format: "%.1f (min %.1f, max %.1f)", median, milliseconds.min() ?? .nan, milliseconds.max() ?? .nan)),
            Stopwatch.row("ms per cell", String(format: "%.2f", median / Double(cells))),
        ]
    }

    /// The cell count and the seconds each of `runs` timed matrices took, after one untimed warm-up.
    private static func time(_ scenario: Scenario, _ rows: Matrix.Rows, runs: Int, workers: Int) throws -> (cells: Int, seconds: [Double]) {
        let cells = try Matrix(scenario: scenario, rows: rows, workers: workers).cells.count
        let seconds = try (0..<runs).map { _ in try Stopwatch.milliseconds { _ = try Matrix(scenario: scenario, rows: rows, workers: workers) } / 1e3 }
        return (cells, seconds)
    }
}
