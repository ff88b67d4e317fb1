import Foundation
import Testing

/// `mitmsim evaluate --ct-log`: a chain judged with its embedded SCTs against the logs a lesson's world exported.
struct EvaluateTransparencyCommandTests {
    let directory = NSTemporaryDirectory() + "mitmsim-ct-evaluate-\(UUID().uuidString)"
    let at = ["--at", "2026-06-01T00:00:00Z"]

    func exported() throws -> (chain: String, root: String) {
        let export = try CommandLine.run(
            ["pki", "export", "59-compromised-public-ca-logs-its-forgery", "--out", directory, "--scenarios", ScenarioCommandTests.scenarios])
        #expect(export.status == 0, "\(export.standardError)")
        let chain = directory + "/chain.pem"
        let bundle =
            try Data(contentsOf: URL(fileURLWithPath: directory + "/bank-leaf.pem"))
            + Data(contentsOf: URL(fileURLWithPath: directory + "/bank-intermediate.pem"))
        try bundle.write(to: URL(fileURLWithPath: chain))
        return (chain, directory + "/bank-root.pem")
    }

    func log(_ id: String, _ operatorName: String) -> [String] { ["--ct-log", "\(operatorName)=\(directory)/ct-log-\(id).pub"] }

    @Test func aLoggedChainIsCTQualifiedWithTheLogsOfItsWorldAndRefusedWithTooFewOrAnImpostor() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (chain, root) = try exported()
        let base = ["evaluate", "--chain", chain, "--domain", "bank.test", "--trust", root] + at
        let all = log("north-1", "North Logs") + log("north-2", "North Logs") + log("south-1", "South Logs")

        let qualified = try CommandLine.run(base + all)
        #expect(qualified.status == 0, "\(qualified.standardOutput)")
        #expect(qualified.standardOutput.contains("3 counting: CT-qualified"))

        // Two logs of one operator count for two of the three a 395-day leaf needs.
        let oneOperator = try CommandLine.run(base + log("north-1", "North Logs") + log("north-2", "North Logs"))
        #expect(oneOperator.status == 1)
        #expect(oneOperator.standardOutput.hasPrefix("NOT TRUSTED: certificateTransparencyRequired"))

        // Another key under a known log's name: its SCT no longer counts.
        let impostor = try CommandLine.run(
            ["pki", "export", "58-compromised-public-ca-without-a-log", "--out", directory + "/other"]
                + ["--scenarios", ScenarioCommandTests.scenarios])
        #expect(impostor.status == 0)
        let swapped = log("north-1", "North Logs") + log("north-2", "North Logs") + ["--ct-log", "South Logs=\(directory)/other/ct-log-south-1.pub"]
        let refused = try CommandLine.run(base + swapped)
        #expect(refused.status == 1)
        #expect(refused.standardOutput.contains("SCTs that do not count, from a log the device does not know"))

        // Without a log list the device requires no CT, as before.
        #expect(try CommandLine.run(base).status == 0)
    }

    @Test func aCTLogFileThatIsNoPublicKeyIsBadInputNamingTheOption() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (chain, root) = try exported()
        let result = try CommandLine.run(
            ["evaluate", "--chain", chain, "--domain", "bank.test", "--trust", root, "--ct-log", root] + at)
        #expect(result.status == 2)
        #expect(result.standardError.contains("--ct-log"))
    }
}
