import ArgumentParser
import Console
import Foundation
import Simulation

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
            guard let lesson = catalog.first(where: { $0.attacker.attack == .forge }) ?? catalog.first else { throw BadInput("no lessons") }
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
            print("mitmsim bench console: lesson '\(lesson.id)', \(presses) presses each, 120×40, "
                  + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
            print(Stopwatch.row("policy key (p) to redrawn frame (re-run)", String(format: "median %.2f ms (target ≤ 50: %.2f of budget)",
                                                                                           Stopwatch.median(edit), Stopwatch.median(edit) / 50)))
            print(Stopwatch.row("plain redraw (→)", String(format: "median %.3f ms (target ≤ 5: %.2f of budget)",
                                                           Stopwatch.median(redraw), Stopwatch.median(redraw) / 5)))
        }
    }
}
