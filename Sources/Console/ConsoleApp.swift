import Foundation
import Simulation

/// The console's only loop: draw, read a key, update, do the effect. All drawing goes through `Terminal`.
public enum ConsoleApp {
    /// Runs until the user quits. `state.scenario`, when set, is run and opened first.
    public static func run(_ initial: ConsoleState) throws {
        let terminal = try Terminal.open(highContrast: initial.classroom)
        defer { terminal.close() }
        var state = initial
        if state.scenario != nil { perform(.run, on: &state) }
        while true {
            state.viewport = terminal.size
            terminal.draw(render(state, size: state.viewport))
            guard let effect = update(&state, terminal.readKey()) else { continue }
            if effect == .quit { return }
            perform(effect, on: &state)
        }
    }

    /// The live lab's screen: redraws as connections come in, until q, or until SIGINT, SIGTERM, SIGHUP or SIGQUIT,
    /// which stop it the same way (the terminal restored) instead of ending the process under the lab.
    /// - Parameter window: the lab's latest connections; read between keys.
    /// - Returns: the signal that stopped it; nil for q.
    @discardableResult
    public static func runLab(_ view: ConsoleState.LabView, window: @escaping () -> Lab.FlowWindow) throws -> Int32? {
        let terminal = try Terminal.open(highContrast: false, stopSignals: [SIGINT, SIGTERM, SIGHUP, SIGQUIT])
        defer { terminal.close() }
        var state = ConsoleState(catalog: [])
        state.lab = view
        state.screen = .lab
        while terminal.stopSignal == nil {
            state.lab?.window = window()
            terminal.draw(render(state, size: terminal.size))
            guard let key = terminal.readKey(waitingAtMost: 200) else { continue }
            if update(&state, key) == .quit { return nil }
        }
        return terminal.stopSignal
    }

    /// Does the work `update` asked for: a real run of the lesson, the matrix, or the comparison.
    public static func perform(_ effect: Effect, on state: inout ConsoleState) {
        guard let scenario = state.scenario else { return }
        switch effect {
        case .run:
            do {
                state.show(try ScenarioRunner.run(scenario))
            } catch {
                state.change = "could not run \(scenario.id): \(error)"
            }
        case .computeMatrix:
            state.matrixCursor = (0, 0)
            do {
                state.matrix = try Matrix(scenario: scenario)
                state.matrixFailure = nil
            } catch {
                state.matrix = nil
                state.matrixFailure = "could not compute the matrix for \(scenario.id): \(error)"
            }
        case .computeComparison:
            do {
                state.comparison = try Comparison(scenario: scenario)
                state.comparisonFailure = nil
            } catch {
                state.comparison = nil
                state.comparisonFailure = "could not compare the clients for \(scenario.id): \(error)"
            }
        case .quit:
            break
        }
    }
}
