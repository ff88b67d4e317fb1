import Foundation
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

    /// The catalog's runs as JSON objects, to pick lessons by verdict and to check the Markdown against.
    func catalogRuns() throws -> [[String: Any]] {
        try #require(try mitmsim(["run", "--all", "--format", "json"]).json["results"] as? [[String: Any]])
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
        #expect(lines.filter { $0.hasPrefix("## ") } == ["## What crossed the wire", "## How the app decided", "## Verdict"])

        let header = try #require(lines.firstIndex(of: "| # | from | to | what |"))
        #expect(lines[header + 1] == "|---|---|---|---|")
        let rows = lines[(header + 2)...].prefix { $0.hasPrefix("| ") }
        #expect(rows.count == events.count)
        #expect(rows.enumerated().allSatisfy { $0.element.hasPrefix("| \($0.offset + 1) | ") })

        #expect(lines.filter { $0.range(of: #"^\d+\. \*\*"#, options: .regularExpression) != nil }.count == steps.count)

        let verdict = try #require(lines.firstIndex(of: "## Verdict"))
        #expect(lines[verdict + 2].hasPrefix("**\(trusted ? "ACCEPTED" : "REJECTED") at \(decidingCheck)**. "), "\(lines[verdict + 2])")
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
        let json = try mitmsim(["matrix", "--attacks", Self.attacks.joined(separator: ","), "--format", "json"]).json
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
        let json = try mitmsim(["matrix", "--attacks", Self.attacks.joined(separator: ","), "--format", "json"]).json
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
