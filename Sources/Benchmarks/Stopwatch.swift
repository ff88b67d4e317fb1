import Foundation

/// Timing and layout helpers shared by the benchmarks.
enum Stopwatch {
    /// Milliseconds taken by `body`.
    static func milliseconds(_ body: () throws -> Void) rethrows -> Double {
        let elapsed = try ContinuousClock().measure(body)
        return Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3
    }

    /// The middle sample; NaN when there are none.
    static func median(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    /// "name ... value" rows, aligned.
    static func row(_ name: String, _ columns: String...) -> String {
        name.padding(toLength: 44, withPad: " ", startingAt: 0) + columns.joined(separator: "  ")
    }

    /// The report's first line names the machine's cores, since every figure depends on them.
    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }
}
