import ArgumentParser
import Simulation

extension MitmSim {
    struct MatrixCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "matrix",
            abstract: "Every AFSecurityPolicy setting against every attack, each cell a real run, as a truth table.")

        @OptionGroup var options: ScenarioOptions

        @Option(
            help: "Comma-separated attacks (default: all): \(Matrix.Column.allCases.map(\.rawValue).joined(separator: ", ")).",
            transform: MatrixCommand.parseAttacks)
        var attacks: [Matrix.Column] = Matrix.Column.allCases

        @Option(help: "The scenario whose world and server the matrix uses (default: the first in the catalog).")
        var scenario: String?

        @Option(help: "Output format.")
        var format: MatrixFormat = .text

        static func parseAttacks(_ text: String) throws -> [Matrix.Column] {
            try text.split(separator: ",").map { name in
                guard let column = Matrix.Column(rawValue: String(name)) else {
                    throw ValidationError("'\(name)' is not an attack (\(Matrix.Column.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                return column
            }
        }

        func run() throws {
            let world = try scenario.map(options.load) ?? options.loadAll().first
            guard let world else { throw BadInput("\(options.scenarios): no scenarios to take a world from") }
            let matrix = try Matrix(scenario: world, columns: attacks)
            switch format {
            case .text: print(matrix.text)
            case .csv: print(matrix.csv)
            case .markdown: print(matrix.markdown)
            case .json: print(matrix.json)
            }
        }
    }
}

enum MatrixFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, csv, markdown
}
