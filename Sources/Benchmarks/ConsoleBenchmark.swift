import Console
import Foundation
import Simulation

/// Time from a policy key to the redrawn frame (re-run included), and a plain redraw, at 120×40.
public enum ConsoleBenchmark {
    /// The report for the catalog's first forging lesson (or its first lesson), `presses` key presses per figure.
    public static func run(catalog: [Scenario], presses: Int) throws -> [String] {
        guard let lesson = catalog.first(where: { $0.attacker.attack == .forge }) ?? catalog.first else { throw BenchmarkError.noLessons }
        var state = ConsoleState(catalog: catalog)
        state.scenario = lesson
        ConsoleApp.perform(.run, on: &state)
        let size = Size(columns: 120, rows: 40)
        let edit = (0..<presses).map { _ in
            Stopwatch.milliseconds {
                if let effect = update(&state, .character("p")) { ConsoleApp.perform(effect, on: &state) }
                _ = render(state, size: size)
            }
        }
        let redraw = (0..<presses).map { _ in
            Stopwatch.milliseconds {
                _ = update(&state, .right)
                _ = render(state, size: size)
            }
        }
        return [
            "mitmsim bench console: lesson '\(lesson.id)', \(presses) presses each, 120×40, \(Stopwatch.cores) cores",
            Stopwatch.row(
                "policy key (p) to redrawn frame (re-run)",
                String(format: "median %.2f ms (target ≤ 50: %.2f of budget)", Stopwatch.median(edit), Stopwatch.median(edit) / 50)),
            Stopwatch.row(
                "plain redraw (→)", String(format: "median %.3f ms (target ≤ 5: %.2f of budget)", Stopwatch.median(redraw), Stopwatch.median(redraw) / 5)),
        ]
    }
}
