import ArgumentParser
import Foundation
import LoopbackTLS
import PKI
import Simulation

/// Where the lessons come from; shared by every command that reads scenarios. The first that is set
/// wins: `--scenarios DIR`, then `$MITMSIM_SCENARIOS`, then the catalog built into the binary (so the
/// working directory never changes which lessons run).
struct ScenarioOptions: ParsableArguments {
    @Option(
        name: .customLong("scenarios"),
        help: ArgumentHelp(
            "A directory of scenario files to use instead of the built-in catalog (without it: $MITMSIM_SCENARIOS, if set).",
            valueName: "dir"))
    var directory: String?

    private var chosen: (catalog: ScenarioCatalog, name: String) {
        if let directory { return (.directory(directory), "--scenarios \(directory)") }
        if let directory = ProcessInfo.processInfo.environment["MITMSIM_SCENARIOS"], !directory.isEmpty {
            return (.directory(directory), "$MITMSIM_SCENARIOS (\(directory))")
        }
        return (.builtIn, ScenarioCatalog.builtIn.description)
    }

    /// Names the source in messages: "the catalog built into mitmsim", "--scenarios DIR" or "$MITMSIM_SCENARIOS (DIR)".
    var scenarios: String { chosen.name }

    func load(_ name: String) throws -> Scenario {
        do { return try chosen.catalog.load(name) } catch { throw BadInput("\(error)") }
    }

    func loadAll() throws -> [Scenario] {
        do { return try chosen.catalog.loadAll() } catch { throw BadInput("\(error)") }
    }

    /// The first lesson that `matches` (by default the catalog's first), reading no lesson after it.
    func first(where matches: (Scenario) -> Bool = { _ in true }) throws -> Scenario? {
        do { return try chosen.catalog.first(where: matches) } catch { throw BadInput("\(error)") }
    }
}

extension MitmSim {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the lessons: id, title and group.")

        @OptionGroup var options: ScenarioOptions

        func run() throws {
            let catalog = try options.loadAll()
            print(TerminalText.escaped("\(catalog.count) \(catalog.count == 1 ? "lesson" : "lessons") from \(options.scenarios)"))
            // Ids are file names, titles and groups the files' words: escaped before the ids are padded into a column.
            let ids = catalog.map { TerminalText.escaped($0.id) }
            let width = ids.map(\.count).max() ?? 0
            var group = ""
            for (scenario, id) in zip(catalog, ids) {
                if scenario.group != group {
                    group = scenario.group
                    print(TerminalText.escaped(group))
                }
                print("  " + id.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + TerminalText.escaped(scenario.title))
            }
        }
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run lessons for real on 127.0.0.1 and check what they expect.",
            discussion: "Each lesson's tries run too. Exit status: 0 when every expectation and try holds, 1 when one does not, 2 on bad input.")

        @OptionGroup var options: ScenarioOptions

        @Argument(help: "Scenario ids (see mitmsim list) or paths of scenario files.")
        var scenarios: [String] = []

        @Flag(help: "Run every scenario in the catalog.")
        var all = false

        @Option(help: "Output format.")
        var format: ReportFormat = .text

        @Option(help: "Append TLS secrets to this file (SSLKEYLOGFILE format) to open the run in Wireshark.")
        var keyLog: String?

        func validate() throws {
            guard all != !scenarios.isEmpty else { throw BadInput("name scenarios to run, or --all (not both)") }
        }

        func run() throws {
            let selected = try all ? options.loadAll() : scenarios.map(options.load)
            let keyLog = try keyLog.map { path in
                do { return try KeyLog(path: path) } catch { throw BadInput("--key-log \(error)") }
            }
            let reports = try selected.map { scenario in
                do {
                    return try ScenarioRunner.runWithTries(scenario, keyLog: keyLog)
                } catch let error as ScenarioError {
                    throw BadInput(error.description)  // it names the file and the key already
                } catch {
                    throw BadInput("\(scenario.id): \(error)")
                }
            }
            switch format {
            case .text: print(reports.map(\.text).joined(separator: "\n" + String(repeating: "-", count: 72) + "\n\n"))
            case .markdown: print(reports.map(\.markdown).joined(separator: "\n---\n\n"))
            case .json: print(RunReport.json(reports))
            }
            let failed = reports.filter { !$0.expectationsMet }
            if reports.count > 1, format == .text { print("\(reports.count - failed.count) passed, \(failed.count) failed") }
            if !failed.isEmpty {
                let ids = TerminalText.escaped(failed.map(\.scenario.id).joined(separator: ", "))
                FileHandle.standardError.write(Data("mitmsim: expectations or tries not met in: \(ids)\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    struct PKICommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "pki", abstract: "Work with a lesson's certificates.", subcommands: [Export.self])

        struct Export: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Write a scenario's certificates (PEM and DER .cer), keys (0600), client .p12 and sha256// pins.")

            @OptionGroup var options: ScenarioOptions

            @Argument(help: "A scenario id or file.")
            var scenario: String

            @Option(help: "The directory to write into (created if missing).")
            var out: String

            func run() throws {
                let scenario = try options.load(scenario)
                do {
                    let written = try PKIExport.write(scenario, to: out)
                    print(written.map { TerminalText.escaped($0) }.joined(separator: "\n"))
                } catch let error as PKIError {
                    throw BadInput("\(error)")
                }
            }
        }
    }
}

enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, markdown
}
