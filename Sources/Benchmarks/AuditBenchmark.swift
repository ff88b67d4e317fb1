import Foundation
import PKI
import Simulation

/// One whole audit timed: an Info.plist and an AFNetworking file pinning a leaf's public key with a backup,
/// for `hosts` hosts, every attack of the matrix a real run.
public enum AuditBenchmark {
    /// One untimed warm-up, then the median of `runs` timed audits, in milliseconds.
    public static func run(hosts: Int, runs: Int, workers: Int) throws -> [String] {
        let directory = NSTemporaryDirectory() + "mitmsim-bench-audit-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let names = (1...hosts).map { "api\($0).example.com" }
        let factory = CertificateFactory()
        let (start, end) = (Date().addingTimeInterval(-86_400), Date().addingTimeInterval(90 * 86_400))
        for (index, dnsNames) in [names, ["backup.example.com"]].enumerated() {
            let leaf = try factory.makeIdentity(.serverLeaf(label: "pin\(index)", dnsNames: dnsNames, notBefore: start, notAfter: end))
            try leaf.certificate.write(to: directory + "/pin\(index).cer")
        }
        let plist = directory + "/Info.plist"
        try Data(#"<?xml version="1.0"?><plist version="1.0"><dict/></plist>"#.utf8).write(to: URL(fileURLWithPath: plist))
        let af = directory + "/af.yaml"
        try Data(
            "version: afnetworking-4\nSSLPinningMode: publicKey\npinnedCertificates: [pin0.cer, pin1.cer]\ndomains: [\(names.joined(separator: ", "))]\n".utf8
        ).write(to: URL(fileURLWithPath: af))
        let configuration = try AuditConfiguration.read(infoPlist: plist, afnetworking: af)
        _ = try Audit(configuration, workers: workers)
        let milliseconds = try (0..<runs).map { _ in try Stopwatch.milliseconds { _ = try Audit(configuration, workers: workers) } }
        let median = Stopwatch.median(milliseconds)
        let runsPerAudit = hosts * Matrix.Column.allCases.count
        return [
            "mitmsim bench audit: \(hosts) host\(hosts == 1 ? "" : "s") × \(Matrix.Column.allCases.count) attacks (\(runsPerAudit) real runs), "
                + "the iOS client, \(workers) workers, \(Stopwatch.cores) cores, median of \(runs) runs",
            Stopwatch.row("one audit, ms", String(format: "%.1f (min %.1f, max %.1f)", median, milliseconds.min() ?? .nan, milliseconds.max() ?? .nan)),
            Stopwatch.row("ms per host", String(format: "%.1f", median / Double(hosts))),
        ]
    }
}
