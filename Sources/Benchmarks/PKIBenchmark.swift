import Foundation
import PKI
import Policies

/// Medians for key generation, issuing, forging, trust and policy evaluation.
public enum PKIBenchmark {
    /// The report, one line each: a header, then each operation's median with its target where one exists.
    ///
    /// Each operation runs 20 times untimed first, then `iterations` times timed.
    public static func run(iterations: Int) throws -> [String] {
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
        var lines = [
            "mitmsim bench pki: median of \(iterations) runs each, \(Stopwatch.cores) cores",
            "operation".padding(toLength: 40, withPad: " ", startingAt: 0) + "median ms   target ms   median/target",
        ]
        for (name, target, body) in rows {
            for _ in 0..<20 { try body() }
            let median = Stopwatch.median(try (0..<iterations).map { _ in try Stopwatch.milliseconds(body) })
            let targetText = target.map { String(format: "%9.3f   %13.2f", $0, median / $0) } ?? "        -               -"
            lines.append(name.padding(toLength: 40, withPad: " ", startingAt: 0) + String(format: "%9.4f   ", median) + targetText)
        }
        return lines
    }
}
