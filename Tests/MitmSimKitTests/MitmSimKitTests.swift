import Foundation
import MitmSimKit
import Testing

/// What another package's test suite can do with `import MitmSimKit` alone: load a lesson from the
/// built-in catalog or from a file, run it for real, and read the report.
struct MitmSimKitTests {
    @Test func aPinnedAppRefusesTheInstalledCAAndTheAttackerReadsNothing() throws {
        let lesson = try ScenarioCatalog.builtIn.load("13-public-key-pin-vs-installed-ca")
        let report = try ScenarioRunner.run(lesson)
        #expect(!report.trusted)
        #expect(!report.attackerView.readSecret)
        #expect(report.expectationsMet)
    }

    @Test func aLessonRunWithItsTriesReportsEachTryAndWhetherItHeld() throws {
        let lesson = try ScenarioCatalog.builtIn.load("05-expired-server-certificate")
        let report = try ScenarioRunner.runWithTries(lesson)
        #expect(report.tries.map(\.lessonTry.keys) == lesson.lesson.tries.map(\.keys))
        #expect(report.tries.allSatisfy { $0.held })
        #expect(report.expectationsMet)
    }

    @Test func anUnpinnedAppTrustsTheInstalledCAAndTheAttackerReadsThePassword() throws {
        let report = try ScenarioRunner.run(ScenarioCatalog.builtIn.load("03-installed-attacker-ca"))
        #expect(report.trusted)
        #expect(report.attackerView.readSecret)
    }

    @Test func aLessonFileOfTheSuitesOwnLoadsByPathAndCanBeChangedBeforeItRuns() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scenarios/03-installed-attacker-ca.yaml")
        var lesson = try ScenarioLoader.load(file.path)
        lesson.client.policy.pinningMode = .publicKey
        lesson.client.policy.pinnedCertificates = ["bank-leaf"]
        #expect(try !ScenarioRunner.run(lesson).trusted)
    }
}
