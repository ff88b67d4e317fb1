import LoopbackTLS
import Policies
import Testing

@testable import Simulation

/// Who answers the bank's request for a client certificate, run for real on loopback against lesson 24's bank,
/// which requires one: only the articles' block (`identityBlock`) opens the `.p12` and presents it.
struct ClientCertificateChallengeTests {
    /// Lesson 24 (no attacker, the bank requires a certificate from `bank-client-ca`) with `handler` in the app.
    static func lesson24(_ handler: ChallengeHandler, pinning pinned: [String] = []) throws -> Scenario {
        var scenario = try ScenarioLoader.load("\(CatalogTests.scenarios)/24-two-way-tls.yaml")
        scenario.client.challengeHandler = handler
        if !pinned.isEmpty {
            scenario.client.policy.pinningMode = .certificate
            scenario.client.policy.pinnedCertificates = pinned
        }
        return scenario
    }

    /// The Certificate messages the app sent the bank: one label per certificate, empty for an empty message.
    static func clientCertificates(_ report: RunReport) -> [[String]] {
        report.events.compactMap { event in
            guard event.actor == .client, event.peer == .origin, case .handshake(.certificate(let chain)) = event.kind else { return nil }
            return chain
        }
    }

    @Test func withoutAChallengeBlockAFNetworkingSendsNoClientCertificateAndTheBankRefusesTheApp() throws {
        let report = try ScenarioRunner.run(Self.lesson24(.afnetworking))
        #expect(report.evaluation?.isTrusted == true)
        #expect(Self.clientCertificates(report) == [[]])
        #expect(
            report.events.contains { event in
                guard event.actor == .origin, case .alert(_, let name, _) = event.kind else { return false }
                return name == "certificate_required"
            })
        #expect(!report.serverReceivedRequest)
        #expect(report.evaluation?.steps.last == IOSClient.clientCertificateAnswer(by: .afnetworking))
        #expect(report.evaluation?.steps.last?.detail.contains("credentialWithIdentity:") == false)
    }

    @Test(arguments: ChallengeHandler.allCases)
    func onlyTheArticlesBlockPresentsTheAppsCertificate(handler: ChallengeHandler) throws {
        let report = try ScenarioRunner.run(Self.lesson24(handler))
        let presents = handler == .identityBlock
        #expect(Self.clientCertificates(report) == [presents ? ["client"] : []])
        #expect(report.serverReceivedRequest == presents)
    }

    @Test func whenThePolicyRefusesTheBankTheBlockIsNeverAskedForTheCertificate() throws {
        let report = try ScenarioRunner.run(Self.lesson24(.identityBlock, pinning: ["bank-client-ca"]))
        #expect(report.evaluation?.isTrusted == false)
        #expect(Self.clientCertificates(report).isEmpty)
        #expect(report.evaluation?.steps.last == IOSClient.clientCertificateNeverAsked)
        #expect(report.evaluation?.urlError == .cancelled)
    }
}
