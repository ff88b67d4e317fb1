import ArgumentParser
import Console
import Foundation
import LoopbackTLS
import Simulation

extension MitmSim {
    struct LabCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lab",
            abstract: "A live bank and attacker on 127.0.0.1 (or --listen ADDR) for real clients: curl, openssl s_client, Python, browsers.",
            discussion: "Prints ready-to-paste commands, then one line per intercepted connection until ^C. The files in --dir are kept.")

        @OptionGroup var options: ScenarioOptions

        @Argument(help: "The lesson whose world to use (default: the first lesson with a forging attacker).")
        var scenario: String?

        @Option(help: "The attacker's port (default: a free one).")
        var port: UInt16 = 0

        @Option(
            help: ArgumentHelp(
                "Listen on this IPv4 address of this machine instead of 127.0.0.1, so other devices can connect (anyone on that network).",
                valueName: "ADDR"))
        var listen: String?

        @Option(help: "Where to write the certificates, keys, .p12, pins and commands.txt.")
        var dir: String = "mitmsim-lab"

        @Flag(help: "Make a new PKI in --dir instead of reusing the one a lab left there (new CA, new pins).")
        var fresh = false

        @Flag(help: "Show the intercepted connections live in the console (q stops the lab).")
        var tui = false

        func run() throws {
            let address = try listen.map { text in
                do { return try ListenAddress(text) } catch { throw BadInput(option: "--listen", error) }
            }
            let lesson = try scenario.map(options.load) ?? options.first { $0.attacker.attack == .forge }
            guard let lesson else { throw BadInput("\(options.scenarios): no lesson with a forging attacker; name one") }
            let lab: Lab
            do {
                lab = try Lab(
                    lesson, directory: dir, address: address ?? .loopback, port: port, fresh: fresh,
                    onFlow: { flow in
                        if !tui {
                            say("[flow] \(flow)")
                            fflush(nil)
                        }
                    },
                    onNotice: { notice in
                        if !tui {
                            say("[lab] \(notice)")
                            fflush(nil)
                        }
                    })
            } catch {
                throw BadInput("\(error)")
            }
            say(
                "mitmsim lab: world of '\(lesson.id)'. Bank \(lesson.server.host) on \(lab.address):\(lab.originPort); "
                    + "attacker on \(lab.address):\(lab.proxyPort) (transparent TLS, HTTP CONNECT to \(lesson.server.host) only, "
                    + "and its profile page at http://\(lab.address):\(lab.proxyPort)/). Files in \(dir)/.")
            say("PKI: \(lab.pkiSummary).")
            say(lab.trustCheckSentence)
            if let address {
                let reach = address.isLoopback ? "\(address) is a loopback address, so that is only this machine" : "that is anyone on its network"
                say("WARNING: --listen \(address): anyone who can reach \(address) can connect to the bank and the attacker; \(reach).")
            } else {
                say("Everything listens on 127.0.0.1 only.")
            }
            say(Lab.limitsSummary)
            say("Paste any of these in another terminal:")
            print()
            let commands = lab.commands  // each read judges every command's chain again
            for (index, command) in commands.enumerated() {
                say("\(index + 1). \(command.title)")
                say("   like AFSecurityPolicy: \(command.policy); expect: \(command.expected)")
                say("   \(command.line)")
                print()
            }
            if tui {
                fflush(nil)
                let stopSignal: Int32?
                do {
                    // The port first: a narrow screen cuts the title's end.
                    stopSignal = try ConsoleApp.runLab(
                        ConsoleState.LabView(
                            title: "attacker on \(lab.address):\(lab.proxyPort), world of '\(lesson.id)'", commands: commands,
                            trustCheck: lab.trustCheckSentence),
                        window: { lab.flowWindow })
                } catch let error as TerminalError {
                    lab.stop()
                    throw BadInput("\(error)")
                }
                lab.stop()
                print()
                let by = stopSignal.map { " by \(signalName($0))" } ?? ""
                say("mitmsim lab: stopped\(by); the files in \(dir)/ are kept.")
                return
            }
            let interrupt = Interrupt()
            // Only now that ^C is handled may the lab say it stops the lab.
            say("Intercepted connections appear below. ^C stops the lab.")
            fflush(nil)
            interrupt.wait()
            lab.stop()
            print()
            say("mitmsim lab: stopped; the files in \(dir)/ are kept.")
        }
    }
}

/// Prints one line of the lab's log. Lines quote the lesson's file, --dir, and what network clients sent (their
/// request lines, SNI, CONNECT hosts and User-Agents), so each is escaped as one line.
private func say(_ line: String) {
    print(TerminalText.escaped(line))
}

/// "SIGTERM": the name of a signal the lab's console stops on.
private func signalName(_ number: Int32) -> String {
    [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT"][number] ?? "signal \(number)"
}

/// SIGINT and SIGTERM, from the moment this is made, stop the lab instead of killing the process.
private final class Interrupt {
    private let stopped = DispatchSemaphore(value: 0)
    private var sources: [any DispatchSourceSignal] = []

    init() {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [stopped] in stopped.signal() }
            source.resume()
            return source
        }
    }

    /// Blocks until one of the signals arrives.
    func wait() {
        stopped.wait()
        for source in sources { source.cancel() }
    }
}
