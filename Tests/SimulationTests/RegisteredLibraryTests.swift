import Foundation
import PKI
import Policies
import Simulation
import Testing

/// A library registered from outside mitmsim (`SPKIPinLibrary`, which lives in this test target only) runs
/// through `run`, `compare` and `audit` like a built-in one, every run real TLS on 127.0.0.1: adding a library
/// edits no file of mitmsim.
struct RegisteredLibraryTests {
    /// `LoaderErrorTests.valid` with `spki-pin` as the client, pinning the bank's key, and a forging attacker whose
    /// CA the phone installed (a chain-validating client trusts the forgery).
    static func lesson(noAttacker: Bool = false, clients: String = "", enforce: Bool? = true) -> String {
        var text = LoaderErrorTests.valid
        func replace(_ old: String, _ new: String) {
            precondition(text.contains(old), "LoaderErrorTests.valid has no '\(old)'")
            text = text.replacingOccurrences(of: old, with: new)
        }
        replace("  - id: attacker-ca\n", "  - id: attacker-ca\n      deviceTrust: userInstalled\n")
        if noAttacker { replace("  attack: forge\n  authority: attacker-ca\n", "  attack: none\n") }
        replace("  library: afnetworking-4\n", "  library: spki-pin\n")
        replace("    pinningMode: certificate\n", "    pinningMode: publicKey\n")
        if let enforce { replace("    pinnedCertificates: [bank-leaf]\n", "    pinnedCertificates: [bank-leaf]\n  spkiPin:\n    enforce: \(enforce)\n") }
        replace("  trusted: false\n", "  trusted: false\n  decidingCheck: spkiPinMatch\n")
        return text + "\n" + clients + "\n"
    }

    static func load(_ text: String, libraries: ClientLibraries = SPKIPinLibrary.libraries) throws -> Scenario {
        try ScenarioLoader.decode(Data(text.utf8), file: "spki.yaml", id: "spki-pin", libraries: libraries)
    }

    @Test("Without the registration, a lesson naming the library or its option is refused, and mitmsim's own registry is unchanged")
    func unregisteredIsRefused() throws {
        let option = #expect(throws: ScenarioError.self) { try Self.load(Self.lesson(), libraries: .builtIn) }
        #expect(option?.path == "client.spkiPin")
        let library = #expect(throws: ScenarioError.self) { try Self.load(Self.lesson(enforce: nil), libraries: .builtIn) }
        #expect(library?.path == "client.library")
        #expect(try Self.load(Self.lesson(enforce: nil)).client.library == .spkiPin)
        #expect(!ClientLibraries.builtIn.modelNames.contains(.spkiPin))
    }

    @Test("run: the registered model judges the forgery from the installed CA and refuses it at its own check")
    func runRefusesTheForgery() throws {
        let scenario = try Self.load(Self.lesson())
        #expect(scenario.client.library == .spkiPin)
        #expect(scenario.expect.decidingCheck == .spkiPinMatch)
        let report = try ScenarioRunner.run(scenario)
        #expect(report.expectationsMet, "\(report.checks.filter { !$0.met })")
        #expect(report.evaluation?.rejection == .spkiPinMismatch)
        #expect(report.evaluation?.steps.map(\.description) == ["[FAIL] spkiPinMatch: the leaf 'forged bank-leaf' does not have the pinned key"])
        #expect(report.text.contains("spkiPinMatch"))
    }

    @Test("run: the library's own lesson option reaches its model (report-only lets the forgery through)")
    func itsOptionIsRead() throws {
        let report = try ScenarioRunner.run(Self.load(Self.lesson(enforce: false)))
        #expect(report.trusted)
        #expect(report.attackerView.sawPlaintext)
    }

    @Test("run: with no attacker the real server's key is the pinned one")
    func theRealServerIsTrusted() throws {
        let report = try ScenarioRunner.run(Self.load(Self.lesson(noAttacker: true)))
        #expect(report.trusted)
        #expect(report.decidingCheck == .spkiPinMatch)
        #expect(report.serverReceivedRequest)
    }

    @Test("compare: the registered model is a row after mitmsim's own, in every comparison and in a lesson's clients:")
    func compare() throws {
        let scenario = try Self.load(Self.lesson())
        #expect(scenario.comparedClients == ClientLibraries.builtIn.modelNames + [.spkiPin])
        let chosen = try Self.load(Self.lesson(clients: "clients: [afnetworking-4, spki-pin]"))
        let comparison = try Comparison(scenario: chosen)
        #expect(comparison.rows.map(\.client.rawValue) == ["afnetworking-4", "spki-pin"])
        let row = try #require(comparison.rows.last)
        #expect(!row.trusted && row.decidingCheck == .spkiPinMatch && !row.attackerSawPlaintext)
        #expect(row.report.evaluation?.rejection?.code == "spkiPinMismatch")
        #expect(comparison.text.contains("spki-pin"))
    }

    @Test("audit: the registered library's judge stands beside OkHttp's on every attack, and only when it is registered")
    func audit() throws {
        let files = try AuditFiles()
        let pins = try files.write(
            "api.example.com sha256/\(files.leaf.certificate.publicKeySHA256Base64)\napi.example.com sha256/\(AuditFiles.otherPin)\n", to: "pins.txt")
        var configuration = try AuditConfiguration.read(okHttpPins: pins, chains: [files.path("chain.pem")])
        #expect(try Audit(configuration).hosts.first?.clients.count == 1)
        configuration.libraries = SPKIPinLibrary.libraries
        let audit = try Audit(configuration)
        let report = try #require(audit.hosts.first)
        #expect(report.clients.map(\.client).last == "SPKI pin (the first pin)")
        let attacks = try #require(report.clients.last?.attacks)
        #expect(attacks.first { $0.column == .none }?.trusted == true)
        #expect(attacks.first { $0.column == .forgeInstalledCA }?.decidingCheck == .spkiPinMatch)
        // It checks the leaf's key and nothing else: the real chain replayed and the stolen key pass it.
        #expect(attacks.filter(\.trusted).map(\.column) == [.none, .replayedChain, .stolenKey])
        #expect(!audit.attackGotThrough, "the stolen key is not counted, and the replayed chain's attacker has no key to read with")
        #expect(audit.text.contains("SPKI pin (the first pin)"))
    }
}
