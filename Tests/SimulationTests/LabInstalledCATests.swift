import Foundation
import Simulation
import TestSupport
import Testing

/// Lessons whose story is an attacker CA the user installed: the lab prints the command that reproduces the
/// lesson with the lab's CA, and leaves the lesson's own attacker CA, which it does not use, out of `--dir`.
@Suite(.serialized) struct LabInstalledCATests {
    static let title = "curl through the attacker, trusting the attacker's CA as this lesson's device does"

    func withLab(_ id: String, _ body: (Lab, String) throws -> Void) throws {
        let scenario = try ScenarioLoader.load("\(CatalogTests.scenarios)/\(id).yaml")
        let directory = NSTemporaryDirectory() + "mitmsim-lab-installed-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lab = try Lab(scenario, directory: directory) { _ in }
        defer { lab.stop() }
        try body(lab, directory)
    }

    /// The lesson's verdict, and the pasted command's: the same, and the attacker reads the password exactly when the lesson's did.
    @Test(arguments: [
        ("03-installed-attacker-ca", "ACCEPTED at chainTrust", Int32(0)), ("12-certificate-pin-vs-installed-ca", "REJECTED at pinnedAnchors", 90),
        ("13-public-key-pin-vs-installed-ca", "REJECTED at pinnedPublicKeyMatch", 90),
    ])
    func theInstalledCACommandReproducesTheLessonsOutcomeWithTheLabsCA(id: String, verdict: String, status: Int32) throws {
        try withLab(id) { lab, directory in
            let command = try #require(lab.commands.last)
            #expect(command.title.hasPrefix(Self.title), "\(command.title)")
            #expect(command.line.contains("--cacert \(directory)/lab-attacker-ca.pem"), "\(command.line)")
            #expect(command.policy.contains("this lesson's app, \(verdict),"), "\(command.policy)")
            let lesson = try ScenarioRunner.run(lab.scenario)
            let run = try Subprocess.paste(command.line)
            #expect(run.status == status && run.status == command.outcome.exitStatus, "\(run.output)")
            #expect(run.output.contains(command.outcome.output), "\(run.output)")
            for _ in 0..<100 where lesson.attackerView.readSecret && !lab.flows.contains(where: { $0.stolenSecret != nil }) { usleep(20_000) }
            #expect(lab.flows.contains { $0.stolenSecret != nil } == lesson.attackerView.readSecret)
            #expect(command.outcome.attackerReadsSecret == lesson.attackerView.readSecret)
        }
    }

    @Test func theLessonsOwnAttackerCAIsNotWrittenBesideTheLabsOne() throws {
        try withLab("03-installed-attacker-ca") { lab, directory in
            let files = try FileManager.default.contentsOfDirectory(atPath: directory)
            #expect(files.contains("lab-attacker-ca.pem"))
            #expect(!files.contains { $0.hasPrefix("attacker-ca.") }, "\(files.sorted())")
            #expect(!lab.files.contains { $0.hasSuffix("/attacker-ca.pem") })
        }
    }

    @Test func aLessonWithoutAnInstalledCAHasNoSuchCommand() throws {
        try withLab("02-forged-untrusted-ca") { lab, _ in
            #expect(!lab.commands.contains { $0.title.hasPrefix(Self.title) })
        }
    }

    @Test func anAppThatIgnoresTheInstalledCASaysSoAndPointsAtCommandOne() throws {
        try withLab("48-user-ca-android-target-sdk-24") { lab, _ in
            let command = try #require(lab.commands.last)
            #expect(command.title.hasPrefix(Self.title))
            #expect(command.policy.contains("this lesson's app does not (REJECTED at androidTrustAnchors): command 1"), "\(command.policy)")
            #expect(command.outcome.attackerReadsSecret)
        }
    }
}
