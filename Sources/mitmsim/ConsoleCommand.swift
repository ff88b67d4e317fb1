import ArgumentParser
import Console
import Foundation
import Simulation

extension MitmSim {
    struct TUI: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The walkthrough: step through a lesson, change the policy or the attack, and watch the verdict change.")

        @OptionGroup var options: ScenarioOptions

        @Argument(help: "A lesson to open directly (default: the lesson list).")
        var scenario: String?

        @Flag(help: "High contrast, larger spacing, and predict-then-reveal with a score.")
        var classroom = false

        func run() throws {
            var state = ConsoleState(catalog: try options.loadAll(), classroom: classroom)
            if let scenario { state.scenario = try options.load(scenario) }
            do {
                try ConsoleApp.run(state)
            } catch let error as TerminalError {
                guard error != .notATerminal else { throw BadInput("\(error)") }
                // TERM is the trouble: the same lesson still reads as plain text.
                let instead =
                    scenario.map { "`mitmsim run \($0)` shows this lesson as text" }
                    ?? "`mitmsim run LESSON` shows a lesson as text (`mitmsim list` names them)"
                throw BadInput("\(error); \(instead) instead")
            }
        }
    }
}
