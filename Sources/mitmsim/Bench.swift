import ArgumentParser
import Foundation
import LoopbackTLS
import PKI
import Policies
import Simulation

extension MitmSim {
    /// Benchmarks; figures go in issue notes, never in timed test assertions.
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure the engine (run a release build: swift run -c release mitmsim bench …).",
            subcommands: [PKIBench.self, NetworkBench.self, MatrixBench.self, ConsoleBench.self])
    }
}

/// Timing helpers shared by the benchmarks.
enum Stopwatch {
    /// Milliseconds taken by `body`.
    static func milliseconds(_ body: () throws -> Void) rethrows -> Double {
        let elapsed = try ContinuousClock().measure(body)
        return Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3
    }

    static func median(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    /// "name ... value" rows, aligned.
    static func row(_ name: String, _ columns: String...) -> String {
        name.padding(toLength: 44, withPad: " ", startingAt: 0) + columns.joined(separator: "  ")
    }
}

/// The bank chain the benchmarks work on: root ← intermediate ← bank.test, plus an attacker CA.
struct BenchWorld {
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

    /// The bank's origin; with tickets, as the anchor figures of sslsplit and mitmdump were measured.
    func origin(sessionTickets: Int = 0) -> OriginServer.Configuration {
        OriginServer.Configuration(application: BankApp(host: "bank.test"), identity: leaf, chain: [leaf.certificate, intermediate.certificate], sessionTickets: sessionTickets)
    }

    func trust() -> ServerTrust {
        ServerTrust(certificates: [leaf.certificate, intermediate.certificate], anchors: [root.certificate], verifyDate: factory.now)
    }
}
