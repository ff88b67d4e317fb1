import ArgumentParser
import Benchmarks
import Foundation
import PKI
import Simulation

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

        @Option(help: "Also give a --chain of a leaf naming every host, its issuer and a root with this key type (rsa3072 is the costliest a world makes).")
        var chainKey: KeyType?

        func validate() throws {
            // Four clients judge each host: the most hosts an audit then takes (`AuditLimits.runs`).
            let most = AuditLimits.runs / (4 * Matrix.Column.allCases.count)
            guard (1...most).contains(hosts), (1...100).contains(runs), (1...64).contains(workers) else {
                throw BadInput("--hosts must be 1...\(most), --runs 1...100 and --workers 1...64")
            }
        }

        func run() throws {
            try Bench.report { try AuditBenchmark.run(hosts: hosts, runs: runs, workers: workers, chainKey: chainKey) }
        }
    }
}
