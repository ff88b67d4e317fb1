import Foundation
import PKI
import Simulation
import Testing

/// The lab's `--dir` across labs and restarts: a running lab holds it, and a restarted lab serves the
/// same CA and pins the students already trust or copied.
@Suite(.serialized) struct LabDirectoryTests {
    static let lesson = Result { try ScenarioCatalog.builtIn.load("02-forged-untrusted-ca") }

    func temporaryDirectory() -> String { NSTemporaryDirectory() + "mitmsim-lab-dir-\(UUID().uuidString)" }

    /// Starts a lab on `directory`, runs `body` with it, and stops it (releasing the directory).
    @discardableResult
    func withLab<T>(_ directory: String, lesson: Scenario? = nil, fresh: Bool = false, _ body: (Lab) throws -> T) throws -> T {
        let lab = try Lab(lesson ?? Self.lesson.get(), directory: directory, fresh: fresh) { _ in }
        defer { lab.stop() }
        return try body(lab)
    }

    /// Every file in `directory` with its bytes (subdirectories left out).
    func contents(_ directory: String) throws -> [String: Data] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
        return Dictionary(uniqueKeysWithValues: try names.map { ($0, try Data(contentsOf: URL(fileURLWithPath: directory + "/" + $0))) })
    }

    func pin(_ directory: String, _ id: String) throws -> String {
        try Certificate.loadAll(from: "\(directory)/\(id).pem")[0].publicKeyPin
    }

    @Test func aSecondLabOnADirectoryARunningLabHoldsRefusesInOneLineAndLeavesItsFilesAlone() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withLab(directory) { first in
            let before = try contents(directory)
            let refusal = #expect(throws: (any Error).self) { try Lab(Self.lesson.get(), directory: directory) { _ in } }
            let message = "\(refusal.map { "\($0)" } ?? "")"
            #expect(message.contains(directory) && message.contains("another mitmsim lab") && !message.contains("\n"), "\(message)")
            #expect(try contents(directory) == before)
            // The first lab still serves what its files say: curl's "expect: accepted" command would still pass.
            #expect(
                try pin(directory, "bank-leaf")
                    == first.commands.first { $0.title == "curl -k with the real leaf's key pinned" }?.line
                    .components(separatedBy: "'")[1])
        }
    }

    @Test func aRestartedLabReusesTheCAAndPinsItLeftInTheDirectoryAndSaysSo() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try withLab(directory) { lab in (lab.pkiSummary, try contents(directory)["pins.txt"]) }
        let second = try withLab(directory) { lab in (lab.pkiSummary, try contents(directory)["pins.txt"]) }
        #expect(first.0 == "made a new PKI in \(directory)")
        #expect(second.0 == "reused the PKI in \(directory): the same CA and pins as before")
        #expect(first.1 != nil && first.1 == second.1)
    }

    @Test func freshMakesANewCAAndNewPins() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let before = try withLab(directory) { _ in try (pin(directory, "bank-leaf"), pin(directory, Lab.attackerCAID)) }
        let after = try withLab(directory, fresh: true) { lab in
            #expect(lab.pkiSummary.contains("--fresh"))
            return try (pin(directory, "bank-leaf"), pin(directory, Lab.attackerCAID))
        }
        #expect(before.0 != after.0)
        #expect(before.1 != after.1)
    }

    @Test func aKeyThatDoesNotMatchItsCertificateIsRemadeWithItsDependentsAndTheReasonFitsOnOneLine() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let before = try withLab(directory) { _ in try (pin(directory, "bank-root"), pin(directory, "bank-leaf")) }
        try PrivateKey.generate().write(to: directory + "/bank-intermediate.key")
        try withLab(directory) { lab in
            #expect(lab.pkiSummary.contains("bank-intermediate (bank-intermediate.key is not the key of bank-intermediate.pem)"), "\(lab.pkiSummary)")
            #expect(lab.pkiSummary.contains("bank-leaf (bank-leaf was not signed by its issuer 'bank-intermediate')"), "\(lab.pkiSummary)")
            #expect(!lab.pkiSummary.contains("\n"))
            let after = try (pin(directory, "bank-root"), pin(directory, "bank-leaf"))
            #expect(after.0 == before.0, "the root was still good")
            #expect(after.1 != before.1)
        }
    }

    @Test func anUnreadableCertificateIsRemadeAndNamedInTheSummary() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withLab(directory) { _ in }
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: directory + "/bank-root.pem"))
        try withLab(directory) { lab in
            #expect(lab.pkiSummary.hasPrefix("made anew in \(directory): bank-root ("), "\(lab.pkiSummary)")
            let rewritten = try Certificate.loadAll(from: directory + "/bank-root.pem")
            #expect(rewritten.count == 1)
        }
    }

    @Test func anotherLessonInTheSameDirectoryKeepsTheAttackerCAStudentsInstalled() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let installed = try withLab(directory) { _ in try pin(directory, Lab.attackerCAID) }
        // Lesson 05's root has dates of its own, so the bank's PKI is remade; the lab's attacker CA is not.
        try withLab(directory, lesson: ScenarioCatalog.builtIn.load("05-expired-server-certificate")) { lab in
            #expect(lab.pkiSummary.contains("bank-root (bank-root starts at another time than the lesson's)"), "\(lab.pkiSummary)")
            let kept = try pin(directory, Lab.attackerCAID)
            #expect(kept == installed)
        }
    }

    @Test func aLabThatCannotWriteOneOfItsFilesRefusesInOneLineAndLeavesThePreviousLabsFilesAsTheyWere() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withLab(directory) { _ in }
        try FileManager.default.removeItem(atPath: directory + "/pins.txt")
        try FileManager.default.createDirectory(atPath: directory + "/pins.txt/kept", withIntermediateDirectories: true)
        let previous = try contents(directory)

        // --fresh: every certificate and key would be new, so a half-written directory would show.
        let refusal = #expect(throws: (any Error).self) { try withLab(directory, fresh: true) { _ in } }
        #expect("\(refusal.map { "\($0)" } ?? "")" == "\(directory)/pins.txt: cannot be written (it is a directory)")
        #expect(try contents(directory) == previous)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/pins.txt") == ["kept"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".") } == [".mitmsim-lab.lock"], "nothing staged is left")
    }
}
