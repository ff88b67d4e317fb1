import Foundation
import Testing

/// `mitmsim compare` as a teacher runs it: a lesson's attack against its comparison set, one row per client.
struct CompareCommandTests {
    /// A lesson's file with `clients:` added, in a directory of its own.
    final class Lesson {
        let directory = NSTemporaryDirectory() + "mitmsim-compare-\(UUID().uuidString)"
        var path: String { directory + "/lesson.yaml" }

        init(_ id: String, clients: String) throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let text = try String(contentsOfFile: "\(ScenarioCommandTests.scenarios)/\(id).yaml", encoding: .utf8)
            try (text + (text.hasSuffix("\n") ? "" : "\n") + "clients: \(clients)\n").write(toFile: path, atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    @Test("compare --format json gives exactly the scenario and one row per client of the lesson's clients:")
    func jsonRows() throws {
        let lesson = try Lesson("38-afnetworking-2-5-1-accepts-self-signed", clients: "[afnetworking-2.5.2, afnetworking-2.5.1]")
        let result = try CommandLine.run(["compare", lesson.path, "--format", "json"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(Set(result.json.keys) == ["scenario", "rows"])
        #expect(result.json["scenario"] as? String == "lesson")
        let rows = try #require(result.json["rows"] as? [[String: Any]])
        #expect(rows.map { $0["client"] as? String } == ["afnetworking-2.5.2", "afnetworking-2.5.1"])
        #expect(rows.map { $0["trusted"] as? Bool } == [false, true])
        #expect(rows.map { $0["attackerSawPlaintext"] as? Bool } == [false, true])
    }

    @Test("compare prints a table: the attack, then each client's verdict, deciding step and what the attacker read")
    func textTable() throws {
        let lesson = try Lesson("02-forged-untrusted-ca", clients: "[afnetworking-4, afnetworking-2.0]")
        let result = try CommandLine.run(["compare", lesson.path])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("client verdict deciding step attacker read"))
        #expect(lines.filter { $0.hasPrefix("afnetworking-") }.allSatisfy { $0.contains(" REJECTED ") && $0.hasSuffix(" nothing") })
        #expect(lines.filter { $0.hasPrefix("afnetworking-") }.count == 2)
    }

    @Test(
        "A lesson that does not exist, or a clients: entry that is no model, is one line on stderr and exit 2",
        arguments: [("no-such-lesson", "no scenario 'no-such-lesson'"), ("FILE", "clients[0]: 'afnetworking-5' is not a client model")])
    func badInput(name: String, saying: String) throws {
        let lesson = try Lesson("02-forged-untrusted-ca", clients: "[afnetworking-5]")
        let result = try CommandLine.run(["compare", name == "FILE" ? lesson.path : name, "--scenarios", ScenarioCommandTests.scenarios])
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.hasPrefix("mitmsim: ") && result.standardError.contains(saying), "\(result.standardError)")
        #expect(result.standardError.filter { $0 == "\n" }.count == 1)
    }

    @Test("compare --target-sdk 37, as lesson 58 tells it: the Android rows refuse the unlogged forgery, curl still takes it")
    func targetSdk() throws {
        let lesson = "58-compromised-public-ca-without-a-log"
        func rows(_ arguments: [String]) throws -> [String: String] {
            let result = try CommandLine.run(["compare", lesson, "--scenarios", ScenarioCommandTests.scenarios, "--format", "json"] + arguments)
            #expect(result.status == 0, "\(result.standardError)")
            let rows = try #require(result.json["rows"] as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: rows.compactMap { row in (row["client"] as? String).map { ($0, row["decidingCheck"] as? String ?? "-") } })
        }
        let lessons = try rows([])
        let api37 = try rows(["--target-sdk", "37"])
        for android in ["okhttp", "okhttp-3.1.1", "android-nsc"] {
            #expect(lessons[android] != "androidCertificateTransparency")
            #expect(api37[android] == "androidCertificateTransparency")
        }
        #expect(api37["curl"] == lessons["curl"])
        let text = try CommandLine.run(["compare", lesson, "--scenarios", ScenarioCommandTests.scenarios, "--target-sdk", "37"]).standardOutput
        #expect(text.contains("The Android rows (okhttp, okhttp-3.1.1, android-nsc) run as an app with targetSdkVersion 37."))
        let bad = try CommandLine.run(["compare", lesson, "--scenarios", ScenarioCommandTests.scenarios, "--target-sdk", "38"])
        #expect(bad.status == 2)
        #expect(bad.standardError == "mitmsim: --target-sdk: expected an Android API level from 1 to 37, found 38\n")
    }

    @Test("bench compare reports one comparison's time and the time per client, never a verdict")
    func bench() throws {
        let lesson = try Lesson("02-forged-untrusted-ca", clients: "[afnetworking-4, afnetworking-2.6]")
        let result = try CommandLine.run(["bench", "compare", lesson.path, "--runs", "1"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.first?.hasPrefix("mitmsim bench compare: 'lesson', 2 clients, ") == true)
        #expect(lines.dropFirst().map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == ["one comparison,", "ms per"])
    }
}
