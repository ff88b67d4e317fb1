import ArgumentParser
import Foundation
import PKI
import Policies

extension MitmSim {
    /// Benchmarks; figures go in issue notes, never in timed test assertions.
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure the engine (run a release build: swift run -c release mitmsim bench …).",
            subcommands: [PKIBench.self])
    }

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
                let median = try Self.median(iterations: iterations, body)
                let targetText = target.map { String(format: "%9.3f   %13.2f", $0, median / $0) } ?? "        -               -"
                print(name.padding(toLength: 40, withPad: " ", startingAt: 0) + String(format: "%9.4f   ", median) + targetText)
            }
        }

        static func median(iterations: Int, _ body: () throws -> Void) throws -> Double {
            let clock = ContinuousClock()
            for _ in 0..<20 { try body() }
            let samples = try (0..<iterations).map { _ in
                let elapsed = try clock.measure(body)
                return Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3
            }.sorted()
            return samples[samples.count / 2]
        }
    }
}

/// The bank chain the benchmarks work on: root ← intermediate ← bank.test, plus an attacker CA.
private struct BenchWorld {
    let factory = CertificateFactory()
    let root: Identity, intermediate: Identity, leaf: Identity, attacker: Identity
    let leafSpec: CertificateSpec

    init() throws {
        let now = factory.now
        let start = now.addingTimeInterval(-86_400), end = now.addingTimeInterval(365 * 86_400)
        root = try factory.makeIdentity(.authority(label: "Bank Root", commonName: "Bank Root", notBefore: start, notAfter: end))
        intermediate = try factory.makeIdentity(
            .authority(label: "Bank Intermediate", commonName: "Bank Intermediate", pathLength: 0, notBefore: start, notAfter: end), signedBy: root)
        leafSpec = .serverLeaf(label: "bank.test", organization: "Example Bank", dnsNames: ["bank.test", "www.bank.test", "api.bank.test"],
                               notBefore: start, notAfter: end)
        leaf = try factory.makeIdentity(leafSpec, signedBy: intermediate)
        attacker = try factory.makeIdentity(.authority(label: "Attacker CA", commonName: "Attacker CA", notBefore: start, notAfter: end))
    }

    func trust() -> ServerTrust {
        ServerTrust(certificates: [leaf.certificate, intermediate.certificate], anchors: [root.certificate], verifyDate: factory.now)
    }
}
