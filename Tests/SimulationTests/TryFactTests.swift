import Foundation
import Testing

@testable import Simulation

/// What some tries show beyond their verdict, which their lessons and notes ask the learner to look at: each try's
/// keys replayed on its lesson and run for real, as `run` and the console do.
struct TryFactTests {
    /// The run after the try at `index` of lesson `id`.
    static func afterTry(_ index: Int, of id: String) throws -> RunReport {
        let lesson = try ScenarioLoader.load("\(CatalogTests.scenarios)/\(id).yaml")
        let tryAt = try #require(lesson.lesson.tries.indices.contains(index) ? lesson.lesson.tries[index] : nil)
        return try ScenarioRunner.run(tryAt.replay(on: lesson).scenario)
    }

    static func outcome(_ check: TraceStep.Check, in report: RunReport) -> TraceStep.Outcome? {
        report.evaluation?.steps.first { $0.check == check }?.outcome
    }

    @Test func addingTheATSExceptionInLesson33SkipsATSsOwnTrustCheckAndTheBankGetsTheLogin() throws {
        let report = try Self.afterTry(0, of: "33-self-signed-recipe-without-ats-exception")
        #expect(Self.outcome(.atsServerTrust, in: report) == .skipped)
        #expect(report.serverReceivedRequest)
    }

    @Test func lesson37sExceptionMovesATSsTrustCheckFromANoteToSkipped() throws {
        let lesson = try ScenarioRunner.run(ScenarioLoader.load("\(CatalogTests.scenarios)/37-tls10-server-with-exception.yaml"))
        #expect(Self.outcome(.atsServerTrust, in: lesson) == .note)
        #expect(Self.outcome(.atsServerTrust, in: try Self.afterTry(0, of: "37-tls10-server-with-exception")) == .skipped)
    }

    @Test func lesson39sDomainCheckRefusesTheOtherHostsCertificateForItsName() throws {
        let report = try Self.afterTry(0, of: "39-afnetworking-2-5-2-wrong-host")
        #expect(report.evaluation?.rejection?.code == "hostnameMismatch", "\(String(describing: report.evaluation?.rejection))")
    }

    @Test func lesson41OnAFNetworking4RefusesTheExpiredPinnedCertificate() throws {
        let report = try Self.afterTry(0, of: "41-afnetworking-2-0-certificate-mode-ignores-trust")
        #expect(report.evaluation?.decidingStep?.detail.contains("'bank-leaf-2024' expired") == true)
    }

    @Test func withTheStolenKeyInLesson42TheProxyAsksTheAppForNoCertificate() throws {
        let report = try Self.afterTry(0, of: "42-two-way-tls-wrong-p12-password")
        #expect(report.evaluation?.steps.contains { $0.check == .clientCertificate } == false)
        #expect(report.attackerView.readSecret)
    }
}
