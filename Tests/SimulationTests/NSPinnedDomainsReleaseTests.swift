import PKI
import Policies
import Simulation
import Testing

/// Apple documents `NSPinnedDomains` from iOS 14.0: lesson 55 (a CA pin that stops a CA the user installed) run
/// on each iOS release a lesson may choose.
struct NSPinnedDomainsReleaseTests {
    static func run(on platform: Platform) throws -> RunReport {
        try NSPinnedDomainsHandlerTests.run([
            ("  challengeHandler: systemDefault", "  challengeHandler: systemDefault\n  platform: \(platform.rawValue)")
        ])
    }

    @Test("iOS 12 does not read NSPinnedDomains: the installed CA's forgery gets through, and the step says why")
    func iOS12IgnoresTheKey() throws {
        let report = try Self.run(on: .iOS12)
        let step = try #require(NSPinnedDomainsHandlerTests.step(.pinnedIdentities, in: report))
        #expect(step.outcome == .skipped)
        #expect(step.detail.contains("iOS 12 does not read the key"))
        #expect(report.trusted)
    }

    @Test("iOS 13-15 and iOS 16 apply the pins and refuse the installed CA's forgery", arguments: [Platform.iOS13, .iOS16])
    func laterReleasesApplyThePins(_ platform: Platform) throws {
        let report = try Self.run(on: platform)
        #expect(!report.trusted)
        #expect(NSPinnedDomainsHandlerTests.step(.pinnedIdentities, in: report)?.outcome == .failed)
    }
}
