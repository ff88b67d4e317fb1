import ArgumentParser
import Benchmarks
import Foundation

extension MitmSim {
    struct AuditBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audit",
            abstract: "Time one `audit` of an app pinned four ways: AFNetworking, TrustKit, Android NSC, OkHttp (every attack a real run).")

        @Option(help: "Hosts the audited configuration names.")
        var hosts: Int = 1

        @Option(help: "Timed audits (after one untimed warm-up).")
        var runs: Int = 5

        @Option(help: "Worker threads per host.")
        var workers: Int = ProcessInfo.processInfo.activeProcessorCount

        func validate() throws {
            guard (1...16).contains(hosts), (1...100).contains(runs), (1...64).contains(workers) else {
                throw BadInput("--hosts must be 1...16, --runs 1...100 and --workers 1...64")
            }
        }

        func run() throws {
            try Bench.report { try AuditBenchmark.run(hosts: hosts, runs: runs, workers: workers) }
        }
    }
}
