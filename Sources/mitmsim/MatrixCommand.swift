import ArgumentParser
import Policies
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

        @Option(
            help: "Whose AFSecurityPolicy fills the rows, with every setting that release has: \(AFNetworkingVersion.names) (default: afnetworking-4).",
            transform: AFNetworkingVersion.parse)
        var library: AFNetworkingVersion?

        @Flag(help: "One row per AFNetworking release with its +defaultPolicy, instead of one release's settings.")
        var versions = false

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

        func validate() throws {
            if versions, let library {
                throw BadInput("--versions and --library \(library.rawValue) exclude each other: --versions has a row for every release")
            }
        }

        func run() throws {
            let world = try scenario.map(options.load) ?? options.first()
            guard let world else { throw BadInput("\(options.scenarios): no scenarios to take a world from") }
            let matrix = try Matrix(scenario: world, rows: versions ? .versions : .settings(library ?? .v4), columns: attacks)
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
