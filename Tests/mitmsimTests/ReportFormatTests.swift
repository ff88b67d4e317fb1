import Foundation
import PKI
import Simulation
import TestSupport
import Testing

/// `run --format markdown` and `matrix --format csv|markdown` as a teacher pastes them into a handout: each
/// checked against the same run's JSON, so a renderer that drops a row or misnames a verdict fails.
struct ReportFormatTests {
    /// The symbols a matrix cell may hold.
    static let symbols: Set<String> = ["LEAKED", "accepted", "rejected"]
    static let attacks = ["none", "forgeInstalledCA"]

    func mitmsim(_ arguments: [String]) throws -> CommandLine.Result {
        try CommandLine.run(arguments + ["--scenarios", ScenarioCommandTests.scenarios])
    }

    /// `run --all`: the whole catalog as text, run once for every test that reads it.
    static func catalogAsText() throws -> CommandLine.Result {
        try CommandLine.runOnce(["run", "--all", "--scenarios", ScenarioCommandTests.scenarios])
    }

    /// `run --all --format json`: the whole catalog, run once for every test that reads it.
    static func catalogAsJSON() throws -> CommandLine.Result {
        try CommandLine.runOnce(["run", "--all", "--format", "json", "--scenarios", ScenarioCommandTests.scenarios])
    }

    /// `matrix --attacks none,forgeInstalledCA --format json`, run once for every test that reads it.
    static func matrixAsJSON() throws -> CommandLine.Result {
        try CommandLine.runOnce(["matrix", "--attacks", attacks.joined(separator: ","), "--format", "json", "--scenarios", ScenarioCommandTests.scenarios])
    }

    /// The catalog's runs as JSON objects, to pick lessons by verdict and to check the Markdown against.
    func catalogRuns() throws -> [[String: Any]] {
        try #require(try Self.catalogAsJSON().json["results"] as? [[String: Any]])
    }

    @Test func aRunsJSONNamesTheNSURLErrorTheAppSawAndIsNullWhenItWasAccepted() throws {
        let runs = try catalogRuns()
        let refused = try #require(runs.first { $0["scenario"] as? String == "02-forged-untrusted-ca" })
        let error = try #require(refused["urlError"] as? [String: Any])
        #expect(error["code"] as? Int == -1202)
        #expect(error["name"] as? String == "NSURLErrorServerCertificateUntrusted")
        let accepted = try #require(runs.first { $0["scenario"] as? String == "01-no-attacker" })
        #expect(accepted["urlError"] is NSNull, "the key is there, null")
    }

    @Test(arguments: [true, false])
    func aRunAsMarkdownHasTheTitleTheWireTableTheDecisionAndTheVerdict(trusted: Bool) throws {
        let run = try #require(try catalogRuns().first { $0["trusted"] as? Bool == trusted && $0["decidingCheck"] is String })
        let id = try #require(run["scenario"] as? String)
        let title = try #require(run["title"] as? String)
        let decidingCheck = try #require(run["decidingCheck"] as? String)
        let events = try #require(run["events"] as? [Any])
        let steps = try #require(run["steps"] as? [Any])

        let result = try mitmsim(["run", id, "--format", "markdown"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.components(separatedBy: "\n")
        #expect(lines.first == "# \(title)")
        #expect(
            lines.filter { $0.hasPrefix("## ") } == [
                "## Question", "## Answer", "## What crossed the wire", "## How the app decided", "## Verdict", "## Tries",
            ])

        let header = try #require(lines.firstIndex(of: "| # | from | to | what |"))
        #expect(lines[header + 1] == "|---|---|---|---|")
        let rows = lines[(header + 2)...].prefix { $0.hasPrefix("| ") }
        #expect(rows.count == events.count)
        #expect(rows.enumerated().allSatisfy { $0.element.hasPrefix("| \($0.offset + 1) | ") })

        #expect(lines.filter { $0.range(of: #"^\d+\. \*\*"#, options: .regularExpression) != nil }.count == steps.count)

        let verdict = try #require(lines.firstIndex(of: "## Verdict"))
        #expect(lines[verdict + 2].hasPrefix("**\(trusted ? "ACCEPTED" : "REJECTED") at \(decidingCheck)**. "), "\(lines[verdict + 2])")
    }

    @Test func aRunAsMarkdownEndsTheQuestionWithTheStoryAndBeginsTheAnswerWithTheReveal() throws {
        let lesson = try ScenarioLoader.load(ScenarioCommandTests.scenarios + "/02-forged-untrusted-ca.yaml")
        let result = try mitmsim(["run", lesson.id, "--format", "markdown"])
        let story = lesson.lesson.story.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            result.standardOutput.contains("## Question\n\n\(story)\n\n## Answer\n\nLesson `\(lesson.id)`.\n\n\(lesson.revealText)\n\n## What crossed the wire")
        )
        let question = try #require(result.standardOutput.components(separatedBy: "## Answer").first)
        #expect(!question.contains(lesson.id), "an id can say how the lesson ends: it comes with the answer")
        let tries = try #require(result.standardOutput.components(separatedBy: "## Tries\n\n").last)
        #expect(tries.hasPrefix("- Try 't': held (ACCEPTED at chainTrust, secret read)."), "\(tries)")
    }

    /// Every lesson's text from one `run --all`, which prints each as `run ID` does (checked on lesson 02).
    @Test func aRunAsTextShowsTheLessonWithoutMarkdownMarks() throws {
        let all = "\n" + (try Self.catalogAsText().standardOutput)
        let lesson02 = try mitmsim(["run", "02-forged-untrusted-ca"]).standardOutput
        #expect(all.contains("\n" + (lesson02.components(separatedBy: "\nNetwork, in order").first ?? "-") + "\nNetwork, in order"))
        for lesson in Lessons.all {
            let start = try #require(all.range(of: "\n\(lesson.id): "), "\(lesson.id) is not in run --all")
            // Up to the lesson's own network section (or the end): the rest of the catalog is not cut up for each lesson.
            let end = all.range(of: "\nNetwork, in order", range: start.upperBound..<all.endIndex)?.lowerBound ?? all.endIndex
            let shown = all[start.lowerBound..<end]
            #expect(!shown.contains("**") && !shown.contains("`"), "\(lesson.id)")
            #expect(shown.contains(MarkdownStyle.plainText(lesson.revealText)), "\(lesson.id)")
        }
    }

    @Test func theMatrixAsCSVHasAHeaderThenOneRowPerPolicyWithTheJSONVerdicts() throws {
        let expected = try verdictsByPolicy()
        let result = try mitmsim(["matrix", "--attacks", Self.attacks.joined(separator: ","), "--format", "csv"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "pinningMode,allowInvalidCertificates,validatesDomainName,pinned," + Self.attacks.joined(separator: ","))

        expectOneRowPerPolicy(lines.dropFirst().map { $0.components(separatedBy: ",") }, matching: expected)
    }

    @Test func theMatrixAsMarkdownIsATableWithOneRowPerPolicyAndTheAcceptedCountsBelow() throws {
        let expected = try verdictsByPolicy()
        let result = try mitmsim(["matrix", "--attacks", Self.attacks.joined(separator: ","), "--format", "markdown"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "| pinning mode | allowInvalid | validatesDomain | pinned | " + Self.attacks.joined(separator: " | ") + " |")
        #expect(lines.dropFirst().first == "|---|---|---|---|" + String(repeating: "---|", count: Self.attacks.count))

        let cells = lines.map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        // Markdown spells the policy's booleans YES and NO, as Objective-C does.
        expectOneRowPerPolicy(cells.dropFirst(2).dropLast().map { $0.map { ["YES": "true", "NO": "false"][$0] ?? $0 } }, matching: expected)

        let accepted = Self.attacks.indices.map { column in expected.values.filter { $0[column] != "rejected" }.count }
        #expect(lines.last == "| accepted by | | | | " + accepted.map { "\($0) of \(expected.count)" }.joined(separator: " | ") + " |")
    }

    @Test func theMatrixAsJSONNamesTheDecidingCheckOfEveryCellOrNull() throws {
        let json = try Self.matrixAsJSON().json
        let cells = try #require(json["cells"] as? [[String: Any]])
        let checks: Set = [
            "domainGuard", "policySelection", "chainTrust", "allowInvalidOverride", "pinnedAnchors", "pinnedCertificateMatch", "pinnedPublicKeyMatch",
        ]
        #expect(cells.count == 48 * Self.attacks.count)
        for cell in cells {
            let value = try #require(cell["decidingCheck"], "every cell has the key, null when the client never judged")
            #expect(value is NSNull || (value as? String).map(checks.contains) == true, "\(value)")
        }
        let defaultPolicy = cells.first { cell in
            let policy = cell["policy"] as? [String: Any]
            return cell["attack"] as? String == "forgeInstalledCA" && policy?["pinningMode"] as? String == "none"
                && policy?["allowInvalidCertificates"] as? Bool == false && policy?["validatesDomainName"] as? Bool == true
                && policy?["pinned"] as? String == "nothing"
        }
        #expect(defaultPolicy?["decidingCheck"] as? String == "chainTrust")
    }

    /// Each row is four policy columns then one allowed symbol per attack, equal to the JSON's; one row per policy.
    func expectOneRowPerPolicy(_ rows: [[String]], matching expected: [String: [String]], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(rows.count == expected.count, sourceLocation: sourceLocation)
        for row in rows {
            let symbols = Array(row.dropFirst(4))
            #expect(symbols.count == Self.attacks.count && symbols.allSatisfy(Self.symbols.contains), "\(row)", sourceLocation: sourceLocation)
            #expect(expected[row.prefix(4).joined(separator: ",")] == symbols, "\(row)", sourceLocation: sourceLocation)
        }
    }

    /// From the matrix's JSON: for each policy, keyed as the CSV writes it, the symbol of each attack's cell in column order.
    func verdictsByPolicy() throws -> [String: [String]] {
        let json = try Self.matrixAsJSON().json
        var verdicts: [String: [String: String]] = [:]
        for cell in try #require(json["cells"] as? [[String: Any]]) {
            let policy = try #require(cell["policy"] as? [String: Any])
            let key = try ["pinningMode", "allowInvalidCertificates", "validatesDomainName", "pinned"].map { name in
                let value = try #require(policy[name])
                return (value as? Bool).map(String.init) ?? "\(value)"
            }.joined(separator: ",")
            let trusted = cell["trusted"] as? Bool == true
            let leaked = cell["attackerSawPlaintext"] as? Bool == true
            verdicts[key, default: [:]][try #require(cell["attack"] as? String)] = trusted ? (leaked ? "LEAKED" : "accepted") : "rejected"
        }
        return verdicts.mapValues { symbols in Self.attacks.map { symbols[$0] ?? "missing" } }
    }
}

/// Text from a shared lesson pack, a certificate file or a network client reaches the terminal with every control
/// character escaped, in every format and on both streams: none can retitle, clear or recolour the reader's terminal.
@Suite(.serialized) struct HostileTextOnTheCommandLineTests {
    func expectNothingSteers(_ result: CommandLine.Result, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(HostileText.steering(result.standardOutput).isEmpty, "\(result.standardOutput.debugDescription)", sourceLocation: sourceLocation)
        #expect(HostileText.steering(result.standardError).isEmpty, "\(result.standardError.debugDescription)", sourceLocation: sourceLocation)
    }

    @Test(arguments: [["list"], ["run", HostileText.lessonID], ["run", "--all", "--format", "markdown"], ["run", "--all", "--format", "json"]])
    func aHostileLessonIsListedAndRunWithItsControlCharactersEscaped(_ arguments: [String]) throws {
        let directory = try HostileText.writeLesson()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try CommandLine.run(arguments + ["--scenarios", directory])
        #expect(result.status == 0, "\(result.standardError)")
        expectNothingSteers(result)
        if arguments.contains("json") {
            #expect(result.json["title"] as? String == HostileText.title, "JSON escapes by its own rules, so the title reads back byte for byte")
        } else {
            #expect(result.standardOutput.contains(HostileText.shownTitle))
        }
    }

    @Test func aHostileLessonAsMarkdownKeepsItsParagraphs() throws {
        let directory = try HostileText.writeLesson()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lines = try CommandLine.run(["run", "--all", "--format", "markdown", "--scenarios", directory]).standardOutput.components(separatedBy: "\n")
        let question = try #require(lines.firstIndex(of: "Will the app accept the forged chain?"))
        #expect(lines[question - 1] == "")
        #expect(lines[question - 2] == #"Alice installed a profile. \e]0;pwned\a Her app keeps the default policy."#)
    }

    @Test func whereACommandNamesTheLessonOrItsCertificatesItEscapesThem() throws {
        let directory = try HostileText.writeLesson()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let export = try CommandLine.run(["pki", "export", HostileText.lessonID, "--out", directory + "/export\u{1B}[1m", "--scenarios", directory])
        #expect(export.status == 0, "\(export.standardError)")
        expectNothingSteers(export)
        #expect(export.standardOutput.contains(#"/export\e[1m/attacker-ca.pem"#), "\(export.standardOutput)")
        let bench = try CommandLine.run(["bench", "console", "--presses", "1", "--scenarios", directory])
        expectNothingSteers(bench)
        #expect(bench.standardOutput.contains(#"lesson '99-hostile\e[2J'"#), "\(bench.standardOutput)")

        let failing = HostileText.lesson.replacingOccurrences(of: "  trusted: true", with: "  trusted: false")
        try Data(failing.utf8).write(to: URL(fileURLWithPath: "\(directory)/\(HostileText.lessonID).yaml"))
        let run = try CommandLine.run(["run", "--all", "--scenarios", directory])
        #expect(run.status == 1)
        expectNothingSteers(run)
        #expect(run.standardError == #"mitmsim: expectations or tries not met in: 99-hostile\e[2J"# + "\n")
    }

    @Test func aCertificateWhoseNamesCarryControlCharactersIsEvaluatedWithThemEscaped() throws {
        let world = try WorldOnDisk()
        let factory = CertificateFactory(now: world.clock)
        let (start, end) = (world.clock.addingTimeInterval(-86_400), world.clock.addingTimeInterval(90 * 86_400))
        let root = try factory.makeIdentity(
            .authority(label: "root", commonName: "Evil\u{1B}]0;pwned\u{07} Root\u{9B}2J", notBefore: start, notAfter: end))
        let leaf = try factory.makeIdentity(
            .serverLeaf(
                label: "leaf", commonName: "bank.test\u{1B}[2J", organization: "Bank\r\n[pass] chainTrust: fake", dnsNames: ["bank.test"],
                notBefore: start, notAfter: end), signedBy: root)
        try Certificate.writeBundle([leaf.certificate], to: world.path("hostile-chain.pem"))
        try root.certificate.write(to: world.path("hostile-root.pem"))
        let arguments = ["evaluate", "--chain", world.path("hostile-chain.pem"), "--trust", world.path("hostile-root.pem"), "--domain", "bank.test"] + world.at

        let text = try CommandLine.run(arguments)
        #expect(text.status == 0, "\(text.standardOutput)\(text.standardError)")
        expectNothingSteers(text)
        #expect(text.standardOutput.contains(#"ending at 'Evil\e]0;pwned\a Root\u{9B}2J'"#), "the trace names the root by its escaped label")
        #expect(text.standardOutput.contains(#"subject  CN=bank.test\e[2J, O=Bank\r\n[pass] chainTrust: fake"#))
        #expect(!text.standardOutput.components(separatedBy: "\n").contains { $0.hasPrefix("[pass] chainTrust: fake") }, "a name cannot add a line")

        let json = try CommandLine.run(arguments + ["--format", "json"])
        expectNothingSteers(json)
        let path = try #require(json.json["path"] as? [[String: Any]])
        #expect(path.last?["subject"] as? String == "CN=Evil\u{1B}]0;pwned\u{07} Root\u{9B}2J", "JSON reads back byte for byte")
    }

    /// mitmsim's factory makes only DNS names a lesson may use; openssl writes any bytes into a SAN.
    @Test func aSubjectAlternativeNameThatCarriesEscIsShownEscaped() throws {
        let world = try WorldOnDisk()
        let made = try Subprocess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", world.path("san.key"), "-out",
                world.path("san.pem"), "-subj", "/CN=bank.test", "-addext", "subjectAltName=DNS:bank.test,DNS:evil\u{1B}[2J.test",
            ])
        #expect(made.status == 0, "\(made.output)")
        let result = try CommandLine.run(["evaluate", "--chain", world.path("san.pem")])
        expectNothingSteers(result)
        #expect(result.standardOutput.contains(#"SAN      DNS:bank.test, DNS:evil\e[2J.test"#), "\(result.standardOutput)")
    }

    @Test func anErrorThatQuotesHostileInputIsOneEscapedLine() throws {
        let directory = try HostileText.writeLesson()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let broken = HostileText.lesson.replacingOccurrences(of: "library: afnetworking-4", with: #"library: afnetworking-4\#n  platform: "ios\e]0;pwned\a""#)
        try Data(broken.utf8).write(to: URL(fileURLWithPath: "\(directory)/\(HostileText.lessonID).yaml"))
        for arguments in [["run", "--all", "--scenarios", directory], ["evaluate", "--chain", directory + "/\u{1B}]0;pwned\u{07}.pem"]] {
            let result = try CommandLine.run(arguments)
            #expect(result.status == 2)
            expectNothingSteers(result)
            #expect(result.standardError.contains(#"\e]0;pwned\a"#), "\(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1)
        }
    }

    /// What clients send the live lab (a CONNECT host, an SNI) is logged escaped.
    @Test func theLabLogsWhatHostileClientsSentWithItsControlCharactersEscaped() throws {
        let lessons = try HostileText.writeLesson()
        let directory = NSTemporaryDirectory() + "mitmsim-lab-hostile-\(UUID().uuidString)"
        let output = directory + ".txt"
        defer {
            for path in [lessons, directory, output] { try? FileManager.default.removeItem(atPath: path) }
        }
        #expect(FileManager.default.createFile(atPath: output, contents: nil))
        let process = Process()
        process.executableURL = CommandLine.binary
        process.arguments = ["lab", "--dir", directory, "--scenarios", lessons]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = process.standardOutput
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        func printed() -> String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        for _ in 0..<250 where !printed().contains("^C stops the lab.") { usleep(20_000) }
        let port = try #require(printed().firstMatch(of: /attacker on 127\.0\.0\.1:(\d+)/)?.1)

        let clients = HostileText.labClients(host: "127.0.0.1", port: String(port))
        for client in clients { _ = try Subprocess.paste(client) }
        for _ in 0..<250 where printed().components(separatedBy: "[flow]").count <= clients.count { usleep(20_000) }
        process.interrupt()
        process.waitUntilExit()

        let log = printed()
        #expect(HostileText.steering(log).isEmpty, "\(log.debugDescription)")
        for shown in [#"'99-hostile\e[2J'"#, HostileText.refusedCurl, HostileText.readRequest, #"CONNECT \e[2Jevil:443"#, #"SNI 'evil\e[2J'"#] {
            #expect(log.contains(shown), "\(shown) in \(log)")
        }
    }
}
