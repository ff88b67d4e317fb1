import Foundation
import PKI
import Simulation

/// One whole audit timed: four clients pinning a leaf's public key with a backup for `hosts` hosts (AFNetworking,
/// TrustKit in the Info.plist, an Android Network Security Config and OkHttp's pins), every attack of the matrix
/// a real run for each; with `chainKey`, a `--chain` too (a leaf naming every host, its issuer and a root, all with
/// that key type), which the worlds are shaped like. `--hosts 16 --chain-key rsa3072` is the costliest input an audit
/// accepts (an RSA-4096 chain is shaped with RSA-3072, the largest key a world makes).
public enum AuditBenchmark {
    /// One untimed warm-up, then the median of `runs` timed audits, in milliseconds of wall time and of CPU.
    public static func run(hosts: Int, runs: Int, workers: Int, chainKey: KeyType? = nil) throws -> [String] {
        let directory = NSTemporaryDirectory() + "mitmsim-bench-audit-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let names = (1...hosts).map { "api\($0).example.com" }
        let factory = CertificateFactory()
        let (start, end) = (Date().addingTimeInterval(-86_400), Date().addingTimeInterval(90 * 86_400))
        var hashes: [String] = []
        for (index, dnsNames) in [names, ["backup.example.com"]].enumerated() {
            let leaf = try factory.makeIdentity(.serverLeaf(label: "pin\(index)", dnsNames: dnsNames, notBefore: start, notAfter: end))
            try leaf.certificate.write(to: directory + "/pin\(index).cer")
            hashes.append(leaf.certificate.publicKeySHA256Base64)
        }
        func write(_ text: String, _ name: String) throws -> String {
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
            return directory + "/" + name
        }
        let trustKitDomains = names.map {
            "<key>\($0)</key><dict><key>TSKPublicKeyHashes</key><array>" + hashes.map { "<string>\($0)</string>" }.joined() + "</array></dict>"
        }
        let plist = try write(
            #"<?xml version="1.0"?><plist version="1.0"><dict><key>TSKConfiguration</key><dict><key>TSKPinnedDomains</key><dict>"#
                + trustKitDomains.joined() + "</dict></dict></dict></plist>", "Info.plist")
        let af = try write(
            "version: afnetworking-4\nSSLPinningMode: publicKey\npinnedCertificates: [pin0.cer, pin1.cer]\ndomains: [\(names.joined(separator: ", "))]\n",
            "af.yaml")
        let pinSet = "<pin-set>" + hashes.map { "<pin digest=\"SHA-256\">\($0)</pin>" }.joined() + "</pin-set>"
        let nsc = try write(
            "<network-security-config>" + names.map { "<domain-config><domain>\($0)</domain>\(pinSet)</domain-config>" }.joined()
                + "</network-security-config>", "network_security_config.xml")
        let okHttp = try write(names.flatMap { name in hashes.map { "\(name) sha256/\($0)\n" } }.joined(), "pins.txt")
        var chains: [String] = []
        if let chainKey {
            let root = try factory.makeIdentity(.authority(label: "root", commonName: "Bench Root", notBefore: start, notAfter: end), keyType: chainKey)
            let issuer = try factory.makeIdentity(
                .authority(label: "issuer", commonName: "Bench Issuing CA", pathLength: 0, notBefore: start, notAfter: end), keyType: chainKey, signedBy: root)
            let leaf = try factory.makeIdentity(
                .serverLeaf(label: "leaf", dnsNames: names, notBefore: start, notAfter: end), keyType: chainKey, signedBy: issuer)
            try Certificate.writeBundle([leaf, issuer, root].map(\.certificate), to: directory + "/chain.pem")
            chains.append(directory + "/chain.pem")
        }
        let configuration = try AuditConfiguration.read(infoPlist: plist, androidNSC: nsc, okHttpPins: okHttp, afnetworking: af, chains: chains)
        _ = try Audit(configuration, workers: workers)
        var cpu: [Double] = []
        let milliseconds = try (0..<runs).map { _ in
            let before = try ProcessCPU.seconds()
            defer { cpu.append((try? ProcessCPU.seconds()).map { ($0 - before) * 1e3 } ?? .nan) }
            return try Stopwatch.milliseconds { _ = try Audit(configuration, workers: workers) }
        }
        let median = Stopwatch.median(milliseconds)
        let clients = 4
        let runsPerAudit = hosts * clients * Matrix.Column.allCases.count
        return [
            "mitmsim bench audit: \(hosts) host\(hosts == 1 ? "" : "s") × \(clients) clients (AFNetworking, TrustKit, Android NSC, OkHttp) × "
                + "\(Matrix.Column.allCases.count) attacks (\(runsPerAudit) real runs), "
                + (chainKey.map { "a --chain of three \($0.rawValue) certificates, " } ?? "")
                + "\(workers) workers, \(Stopwatch.cores) cores, median of \(runs) runs",
            Stopwatch.row("one audit, ms", String(format: "%.1f (min %.1f, max %.1f)", median, milliseconds.min() ?? .nan, milliseconds.max() ?? .nan)),
            Stopwatch.row("one audit, CPU ms", String(format: "%.1f (min %.1f, max %.1f)", Stopwatch.median(cpu), cpu.min() ?? .nan, cpu.max() ?? .nan)),
            Stopwatch.row("ms per host", String(format: "%.1f", median / Double(hosts))),
            Stopwatch.row("ms per real run", String(format: "%.2f", median / Double(runsPerAudit))),
        ]
    }
}
