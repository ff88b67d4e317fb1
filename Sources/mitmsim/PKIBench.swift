import ArgumentParser
import Foundation
import PKI
import Policies

extension MitmSim {
    struct PKIBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pki", abstract: "Medians for key generation, issuing, forging, trust and policy evaluation.")

        @Option(help: "Timed runs per operation (after 20 untimed warm-up runs).")
        var iterations: Int = 500

        func validate() throws {
            guard (1...100_000).contains(iterations) else { throw BadInput("--iterations must be between 1 and 100000") }
        }

        func run() throws {
            let world = try BenchWorld()
            let trust = world.trust()
            let pinning = SecurityPolicy.policy(withPinningMode: .certificate, pinnedCertificates: [world.leaf.certificate])
            let rows: [(String, Double?, () throws -> Void)] = [
                ("P-256 key generation", nil, { _ = try PrivateKey.generate() }),
                ("issue a leaf (existing key)", nil, { _ = try world.factory.issue(world.leafSpec, key: world.leaf.privateKey, signedBy: world.intermediate) }),
                ("forge a leaf", 0.3, { _ = try world.factory.forge(impersonating: world.leaf.certificate, signedBy: world.attacker) }),
                ("ServerTrust evaluation", nil, { _ = trust.evaluate() }),
                ("policy evaluation, default policy", 0.2, { _ = SecurityPolicy.defaultPolicy.evaluate(serverTrust: trust, forDomain: "bank.test") }),
                ("policy evaluation, certificate pinning", 0.2, { _ = pinning.evaluate(serverTrust: trust, forDomain: "bank.test") }),
            ]
            print("mitmsim bench pki: median of \(iterations) runs each, \(ProcessInfo.processInfo.activeProcessorCount) cores")
            print("operation".padding(toLength: 40, withPad: " ", startingAt: 0) + "median ms   target ms   median/target")
            for (name, target, body) in rows {
                for _ in 0..<20 { try body() }
                let median = Stopwatch.median(try (0..<iterations).map { _ in try Stopwatch.milliseconds(body) })
                let targetText = target.map { String(format: "%9.3f   %13.2f", $0, median / $0) } ?? "        -               -"
                print(name.padding(toLength: 40, withPad: " ", startingAt: 0) + String(format: "%9.4f   ", median) + targetText)
            }
        }
    }
}
