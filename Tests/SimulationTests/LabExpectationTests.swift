import Foundation
import Simulation
import TestSupport
import Testing

/// Every command the lab prints, for every lesson of the catalog, pasted into bash and run by the real
/// client: its exit status and output must be what the lab printed it would be.
@Suite(.serialized, .awayFromThePool) struct LabExpectationTests {
    /// A lab on every lesson; lessons whose printed text is the same once paths and ports are set aside
    /// share one run (their worlds and expectations are then the same).
    /// Most of it is waiting for the real clients: the suite runs away from Swift Testing's threads (`.awayFromThePool`),
    /// so other suites run meanwhile.
    @Test func everyPrintedExpectationHoldsForEveryLessonWithRealClients() throws {
        let failures = try Self.failures()
        #expect(failures.isEmpty, "\(failures.count) printed expectations did not hold:\n\(failures.joined(separator: "\n"))")
    }

    /// What did not hold, each with the lesson, the command and what the client did.
    static func failures() throws -> [String] {
        var checked = Set<String>()
        var failures: [String] = []
        for lesson in try ScenarioCatalog.builtIn.loadAll() {
            let directory = NSTemporaryDirectory() + "mitmsim-lab-expect-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let lab = try Lab(lesson, directory: directory) { _ in }
            defer { lab.stop() }
            // Each read of `commands` judges every outcome anew: read once.
            let commands = lab.commands
            let printed = commands.map { "\($0.title)\n\($0.policy)\n\($0.expected)\n\($0.line)" }.joined(separator: "\n")
                .replacingOccurrences(of: directory, with: "DIR")
                .replacingOccurrences(of: ":\(lab.proxyPort)", with: ":PROXY").replacingOccurrences(of: ":\(lab.originPort)", with: ":ORIGIN")
            guard checked.insert(printed).inserted else { continue }
            for (index, command) in commands.enumerated() {
                let stolenBefore = lab.flows.filter { $0.stolenSecret != nil }.count
                let run = try Subprocess.paste(command.line)
                let place = "\(lesson.id) command \(index + 1) (\(command.title))"
                if run.status != command.outcome.exitStatus || !run.output.contains(command.outcome.output) {
                    failures.append("\(place): printed \(command.expected)\n  exit \(run.status), output:\n\(run.output.suffix(600))")
                }
                // The proxy logs a connection when it ends, a moment after the client exits.
                let stolen = { lab.flows.filter { $0.stolenSecret != nil }.count > stolenBefore }
                if command.outcome.attackerReadsSecret {
                    for _ in 0..<100 where !stolen() { usleep(10_000) }
                }
                if stolen() != command.outcome.attackerReadsSecret {
                    failures.append("\(place): printed \(command.expected)\n  but the attacker \(stolen() ? "did" : "did not") read the secret")
                }
            }
        }
        return failures
    }
}
