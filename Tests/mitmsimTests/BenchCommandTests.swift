import Foundation
import Testing

/// `mitmsim bench` as someone measuring runs it: the report's shape, never its figures.
struct BenchCommandTests {
    @Test func thePKIBenchmarkReportsEveryOperationWithItsTarget() throws {
        let result = try CommandLine.run(["bench", "pki", "--iterations", "1"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("mitmsim bench pki: median of 1 runs each, ") == true)
        let operations = [
            "P-256 key generation", "issue a leaf (existing key)", "forge a leaf", "ServerTrust evaluation",
            "policy evaluation, default policy", "policy evaluation, certificate pinning",
        ]
        #expect(lines.dropFirst(2).map { String($0.prefix(40)).trimmingCharacters(in: .whitespaces) } == operations)
        #expect(lines.filter { $0.hasSuffix("-") }.count == 3, "operations without a target end in a dash")
    }

    @Test func aBenchmarkWithNothingToMeasureExitsTwoInOneLine() throws {
        let empty = NSTemporaryDirectory() + "mitmsim-no-lessons-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let result = try CommandLine.run(["bench", "console", "--scenarios", empty])
        #expect(result.status == 2)
        #expect(result.standardError == "mitmsim: no lessons\n")
    }
}
