import Foundation
import PKI
import Policies
import Testing

@testable import Simulation

/// `NSPinnedDomains` in a lesson's `client.ats` (world ids), in an Info.plist (`SPKI-SHA256-BASE64`), in an audit
/// (real digests placed in the generated world), and the `I` key that cycles a lesson's identities.
struct NSPinnedDomainsLoaderTests {
    static let scenarios = CatalogTests.scenarios

    /// Lesson 55's file with `old` replaced by `new`, decoded as a scenario file.
    func lesson55(replacing old: String, with new: String) throws -> Scenario {
        let text = try String(contentsOfFile: "\(Self.scenarios)/55-nspinneddomains-stops-installed-ca.yaml", encoding: .utf8)
        #expect(text.contains(old))
        return try ScenarioLoader.decode(Data(text.replacingOccurrences(of: old, with: new).utf8), file: "x.yaml", id: "x")
    }

    func refusal(_ body: () throws -> Any) -> String {
        do {
            _ = try body()
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func aLessonNamesTheCertificatesWhoseKeysItPins() throws {
        let lesson = try ScenarioLoader.load("\(Self.scenarios)/55-nspinneddomains-stops-installed-ca.yaml")
        #expect(lesson.client.ats.pinnedDomains["bank.test"]?.caIdentities == [.certificate("bank-intermediate")])
    }

    @Test func aLessonPinningAnIdTheWorldLacksIsRefusedByPath() {
        let message = refusal {
            try lesson55(replacing: "NSPinnedCAIdentities: [bank-intermediate]", with: "NSPinnedCAIdentities: [bank-intermediat]")
        }
        #expect(message.contains("x.yaml: client.ats.NSPinnedDomains.bank.test.NSPinnedCAIdentities[0]"))
        #expect(message.contains("no certificate 'bank-intermediat'"))
    }

    @Test func aLessonEntryWithNeitherListIsRefused() {
        let message = refusal { try lesson55(replacing: "NSPinnedCAIdentities: [bank-intermediate]", with: "NSIncludesSubdomains: true") }
        #expect(message.contains("pins nothing: Apple requires NSPinnedCAIdentities, NSPinnedLeafIdentities or both"))
    }

    @Test func theLabNamesTheNSPinnedDomainsPinsOfALessonThatRefusesTheInstalledCA() throws {
        let lesson = try ScenarioLoader.load("\(Self.scenarios)/55-nspinneddomains-stops-installed-ca.yaml")
        let story = try #require(try Lab.InstalledCAStory(lesson))
        #expect(story.policy(anchorWords: "the bank's root").contains("REJECTED at pinnedIdentities, pinning 'bank-intermediate'"))
        let rotated = try ScenarioLoader.load("\(Self.scenarios)/56-nspinneddomains-rotated-leaf.yaml")
        #expect(rotated.uses("bank-leaf-2025"))
    }

    // MARK: - An Info.plist

    func pinnedPlist(_ files: AuditFiles, leaf: String, ca: String? = nil) throws -> String {
        let caList = ca.map { "<key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\($0)</string></dict></array>" } ?? ""
        return try files.plist(
            """
            <key>NSAppTransportSecurity</key><dict><key>NSPinnedDomains</key><dict><key>api.example.com</key><dict>
            <key>NSPinnedLeafIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\(leaf)</string></dict></array>\(caList)
            </dict></dict></dict>
            """)
    }

    @Test func anInfoPlistGivesRealDigests() throws {
        let files = try AuditFiles()
        let digest = files.leaf.certificate.publicKeySHA256Base64
        let ats = try InfoPlist.appTransportSecurity(at: try pinnedPlist(files, leaf: digest))
        #expect(ats.pinnedDomains["api.example.com"]?.leafIdentities == [.spkiSHA256Base64(digest)])
    }

    @Test(arguments: ["not base64!", Data(repeating: 1, count: 20).base64EncodedString()])
    func aDigestThatIsNotTheBase64Of32BytesIsOneLineNamingTheFileAndKey(_ digest: String) throws {
        let files = try AuditFiles()
        let path = try pinnedPlist(files, leaf: digest)
        let message = refusal { try InfoPlist.appTransportSecurity(at: path) }
        #expect(message.contains(path))
        #expect(message.contains("NSAppTransportSecurity.NSPinnedDomains.api.example.com.NSPinnedLeafIdentities"))
        #expect(message.contains("is not the base64 of a 32-byte SHA-256 digest"))
        #expect(!message.contains("\n"))
        #expect(throws: AuditError.self) { try AuditConfiguration.read(infoPlist: path) }
    }

    // MARK: - An audit

    @Test("An audit reads NSPinnedDomains with no unmodelled-key warning, and a CA pin on the real intermediate stops the installed CA")
    func anAuditPlacesACAPinOnTheGeneratedIntermediate() throws {
        let files = try AuditFiles()
        let plist = try pinnedPlist(files, leaf: files.leaf.certificate.publicKeySHA256Base64, ca: files.intermediate.certificate.publicKeySHA256Base64)
        let configuration = try AuditConfiguration.read(infoPlist: plist, chains: [files.path("chain.pem")])
        #expect(configuration.infoPlist?.value.unmodelledKeys == [])
        let audit = try Audit(configuration)
        let report = try #require(audit.hosts.first)
        #expect(report.host.sources == ["NSPinnedDomains"])
        #expect(report.pins.map(\.worldID) == ["leaf", "intermediate-1"])
        let attacks = try #require(report.clients.first?.attacks)
        #expect(attacks.first { $0.column == .none }?.trusted == true)
        let installed = try #require(attacks.first { $0.column == .forgeInstalledCA })
        #expect(!installed.trusted && installed.decidingCheck == .pinnedIdentities)
        #expect(!audit.warnings.contains { $0.kind == .unmodelledKey || $0.kind == .refusesRealServer })
    }

    @Test("An audit with --afnetworking checks the pins in AFSecurityPolicy's own evaluation, even where the Info.plist exempts the host from ATS")
    func anAuditOfAnAFNetworkingAppChecksThePinsInThePolicysEvaluation() throws {
        let files = try AuditFiles()
        let intermediate = files.intermediate.certificate.publicKeySHA256Base64
        let plist = try files.plist(
            """
            <key>NSAppTransportSecurity</key><dict><key>NSAllowsArbitraryLoads</key><true/><key>NSPinnedDomains</key><dict>
            <key>api.example.com</key><dict><key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\(intermediate)</string>
            </dict></array></dict></dict></dict>
            """)
        let af = try files.write("version: afnetworking-4\ndomains: [api.example.com]\n", to: "af.yaml")
        let audit = try Audit(AuditConfiguration.read(infoPlist: plist, afnetworking: af, chains: [files.path("chain.pem")]))
        let attacks = try #require(audit.hosts.first?.clients.first?.attacks)
        #expect(attacks.first { $0.column == .none }?.trusted == true)
        let installed = try #require(attacks.first { $0.column == .forgeInstalledCA })
        #expect(!installed.trusted && installed.decidingCheck == .chainTrust)
    }

    @Test("A pinned digest that matches no key of the real chain makes the app refuse the real server, and the audit says so")
    func anAuditOfAStalePinWarnsThatTheAppCannotConnect() throws {
        let files = try AuditFiles()
        let plist = try pinnedPlist(files, leaf: AuditFiles.otherPin)
        let audit = try Audit(AuditConfiguration.read(infoPlist: plist, chains: [files.path("chain.pem")]))
        let attacks = try #require(audit.hosts.first?.clients.first?.attacks)
        #expect(attacks.first { $0.column == .none }?.decidingCheck == .pinnedIdentities)
        #expect(Set(audit.warnings.map(\.kind)).isSuperset(of: [.pinMatchesNothing, .refusesRealServer]))
    }

    // MARK: - The I key

    @Test func keyICyclesTheHostsIdentitiesFirstOnlyThenNoneThenAsWritten() throws {
        let lesson = try ScenarioLoader.load("\(Self.scenarios)/56-nspinneddomains-rotated-leaf.yaml")
        let edit = ScenarioEdit.nextPinnedIdentities(lesson: lesson)
        let (once, change) = edit.apply(to: lesson)
        #expect(once.client.ats.pinnedDomains["bank.test"]?.leafIdentities == [.certificate("bank-leaf-2025")])
        #expect(
            change
                == "ATS NSPinnedDomains entry 'bank.test' NSPinnedLeafIdentities 'bank-leaf-2025', 'bank-backup' → NSPinnedLeafIdentities 'bank-leaf-2025'")
        let twice = edit.apply(to: once).scenario
        #expect(twice.client.ats.pinnedDomains.isEmpty)
        #expect(edit.apply(to: twice).scenario.client.ats == lesson.client.ats)
    }
}
