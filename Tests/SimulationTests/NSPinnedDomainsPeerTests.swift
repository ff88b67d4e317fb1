import Foundation
import Policies
import Simulation
import Testing

/// `NSPinnedDomains` belongs to the app, not to AFNetworking: every SSL policy with a host name created in the app's
/// process carries the pins, so an app built on Alamofire or TrustKit meets them in its library's own evaluations.
/// Lesson 55 pins `bank-intermediate` in the Info.plist; Mallory forges with a CA the user installed.
struct NSPinnedDomainsPeerTests {
    static let peers: [(client: ClientModelName, decidedAt: TraceStep.Check)] = [
        (.alamofire5, .alamofireHostValidation),
        (.alamofire4, .alamofire4TrustEvaluation),
        (.trustkit, .trustKitDefaultHandling),
    ]

    static func comparison(_ lesson: String) throws -> Comparison {
        try Comparison(scenario: ComparisonTests.lesson(lesson), clients: peers.map(\.client))
    }

    @Test("Alamofire 5, Alamofire 4 and TrustKit refuse the installed CA's forgery at their own evaluation, which fails the Info.plist's CA pin")
    func everyIOSLibraryMeetsTheInfoPlistsPins() throws {
        let comparison = try Self.comparison("55-nspinneddomains-stops-installed-ca")
        for (row, peer) in zip(comparison.rows, Self.peers) {
            #expect(!row.trusted, "\(row.client)")
            #expect(!row.attackerSawPlaintext, "\(row.client)")
            #expect(row.decidingCheck == peer.decidedAt, "\(row.client)")
            let deciding = row.report.evaluation?.steps.first { $0.check == peer.decidedAt }
            #expect(deciding?.detail.contains(NSPinnedDomainsHandlerTests.caPinSentence) == true, "\(row.client)")
            #expect(row.report.evaluation?.rejection?.code == RejectionReason.pinnedIdentityMismatch.code, "\(row.client)")
            let settings = row.report.settingsLines
            #expect(settings.last?.hasPrefix("Info.plist: NSPinnedDomains 'bank.test' (NSPinnedCAIdentities 1)") == true, "\(row.client)")
        }
        #expect(comparison.heading.last?.hasSuffix("and the Alamofire and TrustKit rows its Info.plist's NSPinnedDomains.") == true)
    }

    @Test("Without the attacker, the bank's rotated leaf has a key the Info.plist pins, and each of those libraries accepts it")
    func theBanksRotatedLeafPassesThePinsInEveryIOSLibrary() throws {
        let comparison = try Self.comparison("56-nspinneddomains-rotated-leaf")
        #expect(comparison.rows.map(\.trusted) == [true, true, true])
    }
}
