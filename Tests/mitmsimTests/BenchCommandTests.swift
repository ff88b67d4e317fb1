import Foundation
import TestSupport
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

    /// Most of it is waiting (for the proxies to start, for the timed rounds): off Swift Testing's threads.
    @Test func theNetworkBenchmarkReportsCPUPerConnectionAndTheLabsMemory() async throws {
        let result = try await offThePool {
            try CommandLine.run([
                "bench", "network", "--exchanges", "2", "--relays", "1", "--relay-mib", "1", "--load-seconds", "0.3", "--load-rounds", "1",
                "--lab-connections", "30",
            ])
        }
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        let rows = [
            "connections per second, 1 client", "connections per second, 2 clients at once", "median ms per connection, 1 client",
            "process CPU ms per connection",
        ]
        #expect(rows.allSatisfy { row in lines.contains { $0.hasPrefix(row) } }, "\(lines)")
        #expect(
            lines.contains {
                $0.hasPrefix("  mitmsim proxy CPU per proxied connection ")
                    && $0.contains("(target ≤ 1.5; for scale, not a floor: one server and one client side")
            })
        #expect(lines.contains { $0.hasPrefix("  mitmsim median / direct median, 1 client: ") && $0.hasSuffix("(target ≤ 1.50×)") })
        // Measured against mitmdump when it is on PATH, else against its reference figure.
        #expect(lines.contains { $0.hasPrefix("  mitmsim connections/s") && $0.contains("mitmdump's") && $0.contains("≥ 4.00×") })
        let memory = try #require(lines.last)
        #expect(memory.contains("after 100 warm-up connections") && memory.contains("after 30 more") && memory.hasSuffix("(target < 10)"), "\(memory)")
    }

    @Test func aLoadSettingOutOfRangeExitsTwoInOneLine() throws {
        let result = try CommandLine.run(["bench", "network", "--load-rounds", "0"])
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("mitmsim: --exchanges must be 1...100000") && result.standardError.filter { $0 == "\n" }.count == 1)
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
