import ArgumentParser
import Benchmarks
import PKI

extension MitmSim {
    /// Benchmarks; figures go in issue notes, never in timed test assertions.
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure the engine (run a release build: swift run -c release mitmsim bench …).",
            subcommands: [
                PKIBench.self, NetworkBench.self, MatrixBench.self, CompareBench.self, AuditBench.self, ConsoleBench.self, LoadClientCommand.self,
            ])

        /// Prints a benchmark's report; a benchmark that cannot measure is bad input (exit 2, one line).
        static func report(_ measure: () throws -> [String]) throws {
            do {
                // A report names the lesson it measured, whose id is a file's name.
                print(try measure().map { TerminalText.escaped($0) }.joined(separator: "\n"))
            } catch let error as BenchmarkError {
                throw BadInput(error.description)
            }
        }
    }
}
