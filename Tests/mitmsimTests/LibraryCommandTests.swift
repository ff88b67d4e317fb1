import Foundation
import Testing

/// `evaluate --library`, `matrix --library` and `matrix --versions`: the real binary choosing which AFNetworking
/// release's AFSecurityPolicy decides.
struct LibraryCommandTests {
    static let releases = [
        "afnetworking-4", "afnetworking-3.1", "afnetworking-3.0", "afnetworking-2.6", "afnetworking-2.5.3", "afnetworking-2.5.2", "afnetworking-2.5.1",
        "afnetworking-2.5.0",
        "afnetworking-2.2", "afnetworking-2.1", "afnetworking-2.0",
    ]
    let world = try! WorldOnDisk()

    func matrix(_ arguments: [String]) throws -> CommandLine.Result {
        try CommandLine.run(["matrix"] + arguments + ["--scenarios", ScenarioCommandTests.scenarios])
    }

    func evaluate(_ arguments: [String]) throws -> CommandLine.Result {
        try CommandLine.run(["evaluate", "--trust", world.path("bank-root.pem")] + arguments + world.at)
    }

    @Test func afnetworking2_5_2sDefaultPolicyTrustsTheRealChainForAnotherHostAnd2_5_3sDoesNot() throws {
        let otherHost = ["--chain", world.path("chain.pem"), "--domain", "attacker.test"]
        let old = try evaluate(otherHost + ["--library", "afnetworking-2.5.2"])
        #expect(old.status == 0, "\(old.standardOutput)")
        #expect(old.standardOutput.hasPrefix("TRUSTED"))
        let fixed = try evaluate(otherHost + ["--library", "afnetworking-2.5.3"])
        #expect(fixed.status == 1)
        #expect(fixed.standardOutput.hasPrefix("NOT TRUSTED: hostnameMismatch"), "\(fixed.standardOutput)")
    }

    @Test("releases that set no policy of their own check the host through CFNetwork's SSL policy, as in a lesson")
    func releasesWithoutAPolicyOfTheirOwnKeepCFNetworksHostCheck() throws {
        for release in ["afnetworking-2.2", "afnetworking-2.1", "afnetworking-2.0"] {
            let result = try evaluate(["--chain", world.path("chain.pem"), "--domain", "attacker.test", "--library", release])
            #expect(result.status == 1, "\(release): \(result.standardOutput)")
            #expect(result.standardOutput.hasPrefix("NOT TRUSTED: hostnameMismatch"), "\(release): \(result.standardOutput)")
        }
    }

    @Test func anExplicitValidatesDomainNameOverridesTheReleasesDefault() throws {
        let result = try evaluate([
            "--chain", world.path("chain.pem"), "--domain", "attacker.test", "--library", "afnetworking-2.5.2", "--validates-domain-name",
        ])
        #expect(result.status == 1)
        #expect(result.standardOutput.hasPrefix("NOT TRUSTED: hostnameMismatch"), "\(result.standardOutput)")
    }

    @Test func withoutALibraryAFNetworking4Decides() throws {
        let implicit = try evaluate(["--chain", world.path("chain.pem"), "--domain", "attacker.test", "--format", "json"])
        let explicit = try evaluate(["--chain", world.path("chain.pem"), "--domain", "attacker.test", "--format", "json", "--library", "afnetworking-4"])
        #expect(implicit.status == 1)
        #expect(implicit.standardOutput == explicit.standardOutput)
    }

    /// Holds once `SecurityPolicy.evaluate` decides by version: 2.5.1's mode none returns YES without evaluating.
    @Test func afnetworking2_5_1sDefaultPolicyTrustsAForgeryFromAnUntrustedCA() throws {
        let result = try evaluate(["--chain", world.path("forged.pem"), "--domain", "bank.test", "--library", "afnetworking-2.5.1"])
        #expect(result.status == 0, "\(result.standardOutput)")
    }

    /// The `false` half holds today; the `true` half once `SecurityPolicy.evaluate` decides by version.
    @Test func validatesCertificateChainDecidesWhetherTheLeafsPinnedKeyAloneIsEnough() throws {
        let pinned = [
            "--chain", world.path("chain.pem"), "--domain", "bank.test", "--library", "afnetworking-2.5.1", "--pinning-mode", "public-key",
            "--pin", world.path("bank-leaf.cer"),
        ]
        #expect(try evaluate(pinned + ["--validates-certificate-chain", "false"]).status == 0)
        #expect(try evaluate(pinned + ["--validates-certificate-chain", "true"]).status == 1)
    }

    @Test func theVersionsMatrixHasARowPerReleaseInEveryFormat() throws {
        let attacks = ["--attacks", "none,wrongHost"]
        let text = try matrix(["--versions"] + attacks)
        #expect(text.status == 0, "\(text.standardError)")
        let lines = text.standardOutput.components(separatedBy: "\n")
        #expect(lines.first?.hasPrefix("Every AFNetworking release's default policy × attack for the world of '") == true)
        let header = try #require(lines.firstIndex { $0.hasPrefix("library ") })
        #expect(lines[(header + 1)...].prefix(Self.releases.count).map { String($0.split(separator: " ")[0]) } == Self.releases)

        let csv = try matrix(["--versions", "--format", "csv"] + attacks).standardOutput.split(separator: "\n").map(String.init)
        #expect(csv.first == "library,pinningMode,allowInvalidCertificates,validatesDomainName,validatesCertificateChain,pinned,none,wrongHost")
        #expect(csv.dropFirst().map { String($0.split(separator: ",")[0]) } == Self.releases)
        #expect(csv.contains("afnetworking-2.5.2,none,false,false,true,nothing,accepted,LEAKED"))
        #expect(csv.contains("afnetworking-4,none,false,true,,nothing,accepted,rejected"))

        let markdown = try matrix(["--versions", "--format", "markdown"] + attacks).standardOutput.split(separator: "\n").map(String.init)
        #expect(markdown.first == "| library | pinning mode | allowInvalid | validatesDomain | validatesChain | pinned | none | wrongHost |")
        #expect(markdown.dropFirst().first == "|---|---|---|---|---|---|---|---|")
        #expect(markdown.count == 2 + Self.releases.count + 1)
        #expect(markdown.contains { $0.hasPrefix("| afnetworking-2.0 | none | NO | - | - | nothing | accepted |") })
        #expect(markdown.last?.hasPrefix("| accepted by | | | | | | 11 of 11 | ") == true)
    }

    @Test func theVersionsMatrixAsJSONNamesEachCellsLibraryWithNullForAPropertyItLacks() throws {
        let json = try matrix(["--versions", "--attacks", "wrongHost", "--format", "json"]).json
        let cells = try #require(json["cells"] as? [[String: Any]])
        #expect(cells.count == Self.releases.count)
        func cell(_ library: String) -> [String: Any]? { cells.first { ($0["policy"] as? [String: Any])?["library"] as? String == library } }
        func policy(_ library: String) -> [String: Any] { cell(library)?["policy"] as? [String: Any] ?? [:] }
        #expect(
            Set(policy("afnetworking-4").keys) == [
                "library", "pinningMode", "allowInvalidCertificates", "validatesDomainName", "validatesCertificateChain", "pinned",
            ])
        #expect(policy("afnetworking-4")["validatesCertificateChain"] is NSNull)
        #expect(policy("afnetworking-2.0")["validatesDomainName"] is NSNull)
        #expect(policy("afnetworking-2.5.3")["validatesCertificateChain"] as? Bool == true)
        #expect(cell("afnetworking-2.5.2")?["trusted"] as? Bool == true)
        #expect(cell("afnetworking-2.5.3")?["trusted"] as? Bool == false)
    }

    @Test func aReleasesSettingsMatrixShowsOnlyThePropertiesItHas() throws {
        let release251 = try matrix(["--library", "afnetworking-2.5.1", "--attacks", "none", "--format", "csv"])
        #expect(release251.status == 0, "\(release251.standardError)")
        let rows = release251.standardOutput.split(separator: "\n").map(String.init)
        #expect(rows.first == "pinningMode,allowInvalidCertificates,validatesDomainName,validatesCertificateChain,pinned,none")
        #expect(rows.count == 1 + 16 + 2 * 32)
        let release20 = try matrix(["--library", "afnetworking-2.0", "--attacks", "none", "--format", "csv"]).standardOutput
        #expect(release20.hasPrefix("pinningMode,allowInvalidCertificates,pinned,none\n"))
        let v4 = try matrix(["--library", "afnetworking-4", "--attacks", "none", "--format", "csv"]).standardOutput
        #expect(v4 == (try matrix(["--attacks", "none", "--format", "csv"]).standardOutput))
    }

    @Test func theVersionsMatrixIsTimedWithMillisecondsPerCell() throws {
        let result = try CommandLine.run(["bench", "matrix", "--versions", "--runs", "1", "--workers", "1", "--scenarios", ScenarioCommandTests.scenarios])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("mitmsim bench matrix --versions: world of '") == true)
        #expect(lines.first?.contains("110 cells (11 releases × 10 attacks), 1 workers") == true, "\(lines)")
        #expect(lines.dropFirst().map { String($0.prefix(44)).trimmingCharacters(in: .whitespaces) } == ["versions matrix, ms", "ms per cell"])
    }
}

/// A library name or a property the release lacks: exit 2, one line on standard error saying why, nothing on standard output.
struct LibraryBadInputTests {
    let world = try! WorldOnDisk()

    func expectRefused(_ arguments: [String], saying expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try CommandLine.run(arguments)
        #expect(result.status == 2, sourceLocation: sourceLocation)
        #expect(result.standardOutput.isEmpty, sourceLocation: sourceLocation)
        #expect(
            result.standardError.filter { $0 == "\n" }.count == 1 && result.standardError.hasSuffix("\n"), "\(result.standardError)",
            sourceLocation: sourceLocation)
        #expect(result.standardError.contains(expected), "\(result.standardError)", sourceLocation: sourceLocation)
    }

    @Test(arguments: [["evaluate", "--chain", "chain.pem"], ["matrix", "--scenarios", ScenarioCommandTests.scenarios]])
    func anUnknownLibraryIsRefusedWithEveryName(_ command: [String]) throws {
        try expectRefused(
            command + ["--library", "afnetworking-2.5.4"],
            saying:
                "'afnetworking-2.5.4' is not a library mitmsim has (afnetworking-4, afnetworking-3.1, afnetworking-3.0, afnetworking-2.6, afnetworking-2.5.3, afnetworking-2.5.2, "
                + "afnetworking-2.5.1, afnetworking-2.5.0, afnetworking-2.2, afnetworking-2.1, afnetworking-2.0)")
    }

    @Test func validatesCertificateChainIsRefusedForAReleaseWithoutIt() throws {
        let chain = ["evaluate", "--chain", world.path("chain.pem"), "--validates-certificate-chain", "false"]
        try expectRefused(chain, saying: "--validates-certificate-chain: afnetworking-4 has no validatesCertificateChain (AFNetworking 2.6 removed it)")
        try expectRefused(chain + ["--library", "afnetworking-2.6"], saying: "afnetworking-2.6 has no validatesCertificateChain (AFNetworking 2.6 removed it)")
        try expectRefused(
            chain + ["--library", "afnetworking-2.0"], saying: "afnetworking-2.0 has no validatesCertificateChain (it arrived in AFNetworking 2.1)")
        try expectRefused(chain.dropLast() + ["maybe", "--library", "afnetworking-2.5.1"], saying: "'--validates-certificate-chain <true|false>'")
    }

    @Test(arguments: ["--validates-domain-name", "--no-validates-domain-name"])
    func validatesDomainNameIsRefusedForAFNetworking2_0(_ flag: String) throws {
        try expectRefused(
            ["evaluate", "--chain", world.path("chain.pem"), "--library", "afnetworking-2.0", flag],
            saying: "--[no-]validates-domain-name: afnetworking-2.0 has no validatesDomainName (it arrived in AFNetworking 2.1)")
    }

    @Test func theVersionsMatrixAndALibraryExcludeEachOther() throws {
        try expectRefused(
            ["matrix", "--versions", "--library", "afnetworking-2.5.1"], saying: "--versions and --library afnetworking-2.5.1 exclude each other")
    }
}
