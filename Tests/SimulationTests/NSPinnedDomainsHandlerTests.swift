import Foundation
import PKI
import Policies
import Simulation
import Testing

/// `NSPinnedDomains` with each challenge handler, run for real on loopback from lesson 55 (a CA pin on
/// `bank-intermediate`; Mallory forges with a CA the user installed and fully trusted). The pins belong to every
/// SSL policy for the host the app's process creates, so whichever evaluation of the trust is made with one
/// (the default handling's, `AFSecurityPolicy`'s, ATS's after the handler) refuses a chain without a pinned key,
/// and the trace shows the refusal at that evaluation.
struct NSPinnedDomainsHandlerTests {
    /// Lesson 55's file with each `(old, new)` replacement made, loaded as a lesson and run.
    static func run(_ replacements: [(String, String)]) throws -> RunReport {
        var text = try String(contentsOfFile: "\(CatalogTests.scenarios)/55-nspinneddomains-stops-installed-ca.yaml", encoding: .utf8)
        for (old, new) in replacements {
            #expect(text.contains(old), "lesson 55 has '\(old)'")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return try ScenarioRunner.run(ScenarioLoader.decode(Data(text.utf8), file: "55.yaml", id: "55"))
    }

    static func handler(_ handler: ChallengeHandler) -> (String, String) { ("challengeHandler: systemDefault", "challengeHandler: \(handler.rawValue)") }
    static let noAttack = ("attack: forge", "attack: none")
    static let caPinSentence = "no certificate above the leaf 'forged bank-leaf' has a key NSPinnedCAIdentities lists for 'bank.test'"

    static func step(_ check: TraceStep.Check, in report: RunReport) -> TraceStep? { report.evaluation?.steps.first { $0.check == check } }

    @Test("With every challenge handler, the bank's own chain, whose intermediate has the pinned key, is accepted", arguments: ChallengeHandler.allCases)
    func theBanksChainPassesThePinsWithEveryHandler(_ handler: ChallengeHandler) throws {
        let report = try Self.run([Self.handler(handler), Self.noAttack])
        #expect(report.trusted)
        #expect(report.serverReceivedRequest)
        #expect(Self.step(.pinnedIdentities, in: report)?.outcome == .passed)
    }

    /// Who refuses the forgery, at which step, with which error the app receives.
    static let refusals: [(handler: ChallengeHandler, decidedAt: TraceStep.Check, error: NSURLError)] = [
        (.systemDefault, .pinnedIdentities, .serverCertificateUntrusted),
        (.acceptAll, .atsServerTrust, .secureConnectionFailed),
        (.afnetworking, .chainTrust, .serverCertificateUntrusted),
        (.identityBlock, .chainTrust, .cancelled),
    ]

    @Test("With every challenge handler, the installed CA's forgery fails the CA pin at the evaluation that carries it", arguments: refusals)
    func theForgeryFailsThePinsWithEveryHandler(_ handler: ChallengeHandler, decidedAt: TraceStep.Check, error: NSURLError) throws {
        let report = try Self.run([Self.handler(handler)])
        #expect(!report.trusted)
        #expect(!report.attackerView.readSecret)
        #expect(report.decidingCheck == decidedAt)
        #expect(report.evaluation?.urlError == error)
        #expect(report.evaluation?.rejection?.code == RejectionReason.pinnedIdentityMismatch.code)
    }

    @Test("AFSecurityPolicy's own SSL policy for the domain carries the pins: its chain evaluation names the CA pin, and ATS judges nothing after")
    func afSecurityPolicysEvaluationCarriesThePins() throws {
        let report = try Self.run([Self.handler(.afnetworking)])
        let chainTrust = try #require(Self.step(.chainTrust, in: report))
        #expect(chainTrust.outcome == .failed)
        #expect(chainTrust.detail.contains(Self.caPinSentence))
        #expect(Self.step(.pinnedIdentities, in: report) == nil)
        #expect(Self.step(.atsServerTrust, in: report)?.outcome == .skipped)
    }

    @Test("With ATS off for the host, AFSecurityPolicy still refuses the forgery: the pins ride on its SSL policy, not on ATS")
    func arbitraryLoadsLeaveAFSecurityPolicysPinsInPlace() throws {
        let report = try Self.run([Self.handler(.afnetworking), ("NSPinnedDomains:", "NSAllowsArbitraryLoads: true\n    NSPinnedDomains:")])
        #expect(!report.trusted)
        #expect(report.decidingCheck == .chainTrust)
    }

    @Test(
        "A policy with no host name carries no pins: AFSecurityPolicy says YES, and ATS's own evaluation refuses with -1200",
        arguments: [("    pinningMode: none", "    pinningMode: none\n    validatesDomainName: false"), ("  ats:\n", "  domain: null\n  ats:\n")])
    func aPolicyWithoutTheHostLeavesThePinsToATS(_ old: String, _ new: String) throws {
        let report = try Self.run([Self.handler(.afnetworking), (old, new)])
        #expect(Self.step(.chainTrust, in: report)?.outcome == .passed)
        #expect(Self.step(.pinnedIdentities, in: report)?.outcome == .failed)
        #expect(report.decidingCheck == .atsServerTrust)
        #expect(report.evaluation?.urlError == .secureConnectionFailed)
    }

    @Test("AFNetworking 3.0's RejectProtectionSpace leaves the trust to the default handling, whose evaluation fails the pin with -1202")
    func afNetworking30sDefaultHandlingFailsThePin() throws {
        let report = try Self.run([Self.handler(.afnetworking), ("library: afnetworking-4", "library: afnetworking-3.0")])
        #expect(!report.trusted)
        let system = try #require(Self.step(.systemTrust, in: report))
        #expect(system.outcome == .failed)
        #expect(system.detail.contains(Self.caPinSentence))
        #expect(report.evaluation?.urlError == .serverCertificateUntrusted)
    }
}
