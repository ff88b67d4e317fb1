import Foundation
import PKI
import Testing

/// `list`, `run`, `matrix` and `pki export` as a teacher or CI runs them: the real binary and the real catalog.
struct ScenarioCommandTests {
    static let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios").path

    func mitmsim(_ arguments: [String]) throws -> CommandLine.Result {
        try CommandLine.run(arguments + ["--scenarios", Self.scenarios])
    }

    /// A temporary copy of lesson `id` with `text` replaced (which must be there), named `name-UUID.yaml`: the caller removes it.
    func copy(of id: String, named name: String, replacing text: String, with replacement: String) throws -> String {
        let source = try String(contentsOfFile: Self.scenarios + "/\(id).yaml", encoding: .utf8)
        #expect(source.contains(text))
        let path = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString).yaml"
        try source.replacingOccurrences(of: text, with: replacement).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func firstScenario() throws -> String {
        try FileManager.default.contentsOfDirectory(atPath: Self.scenarios).filter { $0.hasSuffix(".yaml") }.sorted()[0].replacingOccurrences(
            of: ".yaml", with: "")
    }

    @Test func withoutATerminalBareMitmsimPrintsHelpAndTheConsoleRefusesInOneLine() throws {
        let bare = try CommandLine.run([])
        #expect(bare.status == 0)
        #expect(bare.standardOutput.contains("SUBCOMMANDS:") && bare.standardOutput.contains("tui"))
        let tui = try mitmsim(["tui"])
        #expect(tui.status == 2)
        #expect(tui.standardError == "mitmsim: the console needs a terminal: standard input and standard output must both be a terminal\n")
    }

    @Test func listShowsEveryLessonUnderItsGroup() throws {
        let result = try mitmsim(["list"])
        #expect(result.status == 0)
        let count = try FileManager.default.contentsOfDirectory(atPath: Self.scenarios).filter { $0.hasSuffix(".yaml") }.count
        #expect(result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("  ") }.count == count)
        #expect(result.standardOutput.contains(try firstScenario()))
    }

    @Test func runAllPassesAndSaysSo() throws {
        let result = try ReportFormatTests.catalogAsText()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasSuffix(" passed, 0 failed\n"))
    }

    @Test func oneRunAsJSONHasTheDocumentedKeys() throws {
        let result = try mitmsim(["run", try firstScenario(), "--format", "json"])
        #expect(result.status == 0)
        let json = result.json
        for key in ["scenario", "title", "trusted", "decidingCheck", "attackerSawPlaintext", "serverReceivedRequest", "expectationsMet", "steps", "events"] {
            #expect(json[key] != nil, "missing \(key)")
        }
        let batch = try ReportFormatTests.catalogAsJSON().json
        #expect(batch["passed"] as? Int == (batch["results"] as? [Any])?.count)
        #expect(batch["failed"] as? Int == 0)
    }

    @Test func aLessonWhoseExpectationDoesNotHoldExitsOneAndSaysWhich() throws {
        let path = try copy(of: firstScenario(), named: "wrong-expectation", replacing: "serverReceivedRequest: true", with: "serverReceivedRequest: false")
        defer { try? FileManager.default.removeItem(atPath: path) }

        let result = try mitmsim(["run", path])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("Expectations NOT met: serverReceivedRequest expected false, got true."))
        #expect(result.standardError.contains("expectations or tries not met in: wrong-expectation-"))
    }

    @Test func eachTryIsReportedAsJSONWithItsKeysItsVerdictAndWhetherItHeld() throws {
        let json = try mitmsim(["run", "05-expired-server-certificate", "--format", "json"]).json
        let tries = try #require(json["tries"] as? [[String: Any]])
        #expect(tries.map { Set($0.keys) } == Array(repeating: ["keys", "trusted", "decidingCheck", "held"], count: 3))
        #expect(tries.map { $0["keys"] as? String } == ["a", "a d", "a d E"])
        #expect(tries.map { $0["trusted"] as? Bool } == [false, false, true])
        #expect(tries.map { $0["decidingCheck"] as? String } == ["domainGuard", "atsServerTrust", "allowInvalidOverride"])
        #expect(tries.allSatisfy { $0["held"] as? Bool == true })
    }

    @Test func aTryThatDoesNotHoldFailsTheRunLikeAnExpectation() throws {
        let path = try copy(
            of: "05-expired-server-certificate", named: "wrong-try", replacing: "    - keys: \"a d\"\n      trusted: false",
            with: "    - keys: \"a d\"\n      trusted: true")
        defer { try? FileManager.default.removeItem(atPath: path) }

        let result = try mitmsim(["run", path])
        #expect(result.status == 1)
        #expect(
            result.standardOutput.contains("Try 'a d': did NOT hold: expected ACCEPTED at atsServerTrust, got REJECTED at atsServerTrust, secret not read."))
        #expect(result.standardError.contains("expectations or tries not met in: wrong-try-"))
        let json = try mitmsim(["run", path, "--format", "json"])
        #expect(json.status == 1)
        #expect((json.json["tries"] as? [[String: Any]])?.map { $0["held"] as? Bool } == [true, false, true])
    }

    @Test func aTryWithAnUnknownKeyIsRefusedWithOneLineNamingTheFileAndTheKeyPath() throws {
        let path = try copy(of: "05-expired-server-certificate", named: "bad-key", replacing: "keys: \"a d E\"", with: "keys: \"a d Z\"")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try mitmsim(["run", path])
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.hasPrefix("mitmsim: \(path): lesson.tries[2].keys: 'Z' is not a key that changes the lesson"), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    @Test func aBrokenLessonOrAnUnknownIdExitsTwoWithOneLine() throws {
        let path = NSTemporaryDirectory() + "broken-\(UUID().uuidString).yaml"
        try "version: 3\ntitle: x\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for arguments in [["run", path], ["run", "no-such-lesson"], ["run"]] {
            let result = try mitmsim(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
            #expect(result.standardOutput.isEmpty)
        }
        #expect(try mitmsim(["run", path]).standardError.contains("\(path): group: missing"))
    }

    @Test func theMatrixComesAsJSONWithACellPerPolicyAndAttack() throws {
        let result = try ReportFormatTests.matrixAsJSON()
        #expect(result.status == 0)
        let cells = result.json["cells"] as? [[String: Any]] ?? []
        #expect(cells.count == 48 * 2)
        #expect(cells.allSatisfy { Set($0.keys).isSuperset(of: ["policy", "attack", "trusted", "attackerSawPlaintext"]) })
        #expect(try mitmsim(["matrix", "--attacks", "teleport"]).status == 2)
    }

    @Test func pkiExportWritesCertificatesKeysAndPinsAsAppsAndCurlTakeThem() throws {
        let directory = NSTemporaryDirectory() + "mitmsim-export-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let twoWay = try FileManager.default.contentsOfDirectory(atPath: Self.scenarios).sorted()
            .first { (try? String(contentsOfFile: Self.scenarios + "/" + $0, encoding: .utf8))?.contains("clientIdentity:") == true }
        let id = try #require(twoWay).replacingOccurrences(of: ".yaml", with: "")
        let result = try mitmsim(["pki", "export", id, "--out", directory])
        #expect(result.status == 0, "\(result.standardError)")

        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.contains("pins.txt") && files.contains("server-chain.pem"))
        #expect(files.contains { $0.hasSuffix(".p12") })
        for key in files where key.hasSuffix(".key") || key.hasSuffix(".p12") {
            let mode = (try FileManager.default.attributesOfItem(atPath: directory + "/" + key)[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o600, "\(key)")
        }
        let cer = try #require(files.first { $0.hasSuffix(".cer") })
        let certificate = try Certificate.loadAll(from: directory + "/" + cer)[0]
        #expect(try String(contentsOfFile: directory + "/pins.txt", encoding: .utf8).contains(certificate.publicKeyPin))
    }
}

/// `mitmsim lab` as a teacher starts it: commands printed, ^C stops it and keeps the files.
struct LabCommandTests {
    @Test func theLabPrintsItsCommandsAndStopsCleanlyOnInterruptKeepingItsFiles() throws {
        let directory = NSTemporaryDirectory() + "mitmsim-lab-cli-\(UUID().uuidString)"
        let output = NSTemporaryDirectory() + "mitmsim-lab-cli-\(UUID().uuidString).txt"
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: output)
        }
        #expect(FileManager.default.createFile(atPath: output, contents: nil))
        let process = Process()
        process.executableURL = CommandLine.binary
        process.arguments = ["lab", "--dir", directory, "--scenarios", ScenarioCommandTests.scenarios]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = process.standardOutput
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        var printed = ""
        for _ in 0..<250 where !printed.contains("^C stops the lab.") {
            usleep(20_000)
            printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        }
        #expect(printed.contains("curl --proxy http://127.0.0.1:"))
        #expect(printed.contains("--pinnedpubkey 'sha256//"))
        #expect(printed.contains("like AFSecurityPolicy: allowInvalidCertificates YES, validatesDomainName NO"))
        process.interrupt()
        process.waitUntilExit()

        #expect(process.terminationStatus == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("stopped; the files in \(directory)/ are kept."))
        #expect(FileManager.default.fileExists(atPath: directory + "/pins.txt"))
    }
}
