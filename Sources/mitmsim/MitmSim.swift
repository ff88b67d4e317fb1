import ArgumentParser
import Foundation
import PKI

/// `mitmsim`: the command-line front end. Commands parse, call the engine and print; nothing more.
@main
struct MitmSim: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mitmsim",
        abstract:
            "A man-in-the-middle simulator for teaching TLS trust: the iOS client (ATS, its challenge handler, AFSecurityPolicy) and the other pinning libraries judge real forgeries.",
        subcommands: [
            TUI.self, List.self, Run.self, CompareCommand.self, MatrixCommand.self, AuditCommand.self, LabCommand.self, Evaluate.self, PKICommand.self,
            Bench.self,
        ])

    /// With no command: the lesson list on a terminal, the help text anywhere else (a pipe, CI).
    func run() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { return print(Self.helpMessage()) }
        let tui = try TUI.parse([])
        try tui.run()
    }

    /// Exit statuses are part of the interface: 0 trusted / all good, 1 not trusted, 2 bad input.
    /// ArgumentParser would use 64 for usage errors; every kind of bad input exits 2 here, in one line.
    static func main() {
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch let error as BadInput {
            fail(error.description)
        } catch {
            if exitCode(for: error) == .success { exit(withError: error) }  // --help, --version
            fail(message(for: error))
        }
    }

    /// Messages quote what was given (values from files, file names, options), so the one line is escaped.
    private static func fail(_ message: String) -> Never {
        let line = TerminalText.escaped(message.split(separator: "\n").joined(separator: " "))
        FileHandle.standardError.write(Data("mitmsim: \(line)\n".utf8))
        Foundation.exit(2)
    }
}

/// Input that cannot be used; the message names the option and the file and says what to fix.
struct BadInput: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }

    /// Prefixes an engine error (which names the file) with the option it came from.
    init(option: String, _ error: Error) { description = "\(option) \(error)" }
}
