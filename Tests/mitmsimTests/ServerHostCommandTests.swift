import Foundation
import Testing

/// An empty host is not "no host": the host check still runs, and nothing names an empty host.
struct ServerHostCommandTests {
    static let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios").path

    @Test func aLessonWhoseServerHostIsEmptyIsRefusedWithExitTwoAndOneLine() throws {
        let first = try FileManager.default.contentsOfDirectory(atPath: Self.scenarios).filter { $0.hasSuffix(".yaml") }.sorted()[0]
        let source = try String(contentsOfFile: Self.scenarios + "/" + first, encoding: .utf8)
        let emptied = source.replacingOccurrences(of: "  host: bank.test", with: "  host: \"\"")
        #expect(emptied != source)
        let path = NSTemporaryDirectory() + "empty-host-\(UUID().uuidString).yaml"
        try emptied.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }

        let result = try CommandLine.run(["run", path, "--scenarios", Self.scenarios])

        #expect(result.status == 2)
        #expect(result.standardError == "mitmsim: \(path): server.host: '' is not a host name or IP address\n")
        #expect(result.standardOutput.isEmpty)
    }
}
