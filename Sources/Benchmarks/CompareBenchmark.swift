import Foundation
import Simulation

/// One `compare` timed whole: every client model of the lesson's comparison set a real run on 127.0.0.1.
public enum CompareBenchmark {
    /// One untimed warm-up, then the median of `runs` timed comparisons of `scenario`.
    public static func run(scenario: Scenario, runs: Int) throws -> [String] {
        let clients = try Comparison(scenario: scenario).rows.count
        let milliseconds = try (0..<runs).map { _ in try Stopwatch.milliseconds { _ = try Comparison(scenario: scenario) } }
        let median = Stopwatch.median(milliseconds)
        return [
            "mitmsim bench compare: '\(scenario.id)', \(clients) clients, \(Stopwatch.cores) cores, median of \(runs) runs",
            Stopwatch.row("one comparison, ms", String(format: "%.1f (min %.1f, max %.1f)", median, milliseconds.min() ?? .nan, milliseconds.max() ?? .nan)),
            Stopwatch.row("ms per client", String(format: "%.2f", median / Double(max(1, clients)))),
        ]
    }
}
