import Policies
import Simulation
import Testing

/// A run's outcome is one shape: a matrix cell keeps the whole of its run, as the runner reports the same cell
/// loaded as a scenario.
struct RunOutcomeTests {
    @Test func aMatrixCellKeepsTheTraceTheChainAndTheHandshakeOfItsRunAsTheRunnerReportsThem() throws {
        let matrix = MatrixTests.matrix
        let cells = matrix.cells.filter { $0.policy == .defaultPolicy(of: .v4) }
        #expect(cells.count == Matrix.Column.allCases.count)
        for cell in cells {
            let report = try ScenarioRunner.run(matrix.scenario(for: cell.policy, cell.column))
            #expect(cell.result.evaluation?.steps.map(\.check) == report.evaluation?.steps.map(\.check), "\(cell.column)")
            #expect(cell.result.presentedChain.map(\.subject.description) == report.presentedChain.map(\.subject.description), "\(cell.column)")
            #expect(cell.result.handshakeCompleted == report.handshakeCompleted, "\(cell.column)")
            #expect(cell.verdict == report.verdict, "\(cell.column)")
        }
    }
}
