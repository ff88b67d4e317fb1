import Foundation
import Simulation
import TestSupport
import Testing

/// Every lesson in `Scenarios/` runs for real, meets its `expect`, and reads exactly as its golden file.
///
/// Re-record the golden files after an intended change with `MITMSIM_RECORD_GOLDEN=1 swift test`.
struct CatalogTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let scenarios = root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios").path
    static let golden = GoldenFiles()
    static let catalog: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: scenarios)) ?? [])
        .filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()

    @Test func theCatalogHasAtLeastTwentyFourLessonsInSeveralGroups() throws {
        let loaded = Lessons.all
        #expect(loaded.count >= 24)
        #expect(Set(loaded.map(\.group)).count >= 4)
        #expect(loaded.allSatisfy { !$0.lesson.story.isEmpty && !$0.lesson.reveal.isEmpty && !$0.summary.isEmpty })
    }

    @Test(arguments: catalog)
    func theLessonMeetsItsExpectationsAndReadsAsRecorded(_ id: String) throws {
        let report = try ScenarioRunner.runWithTries(try #require(Lessons.lesson(id)))
        #expect(
            report.expectationsMet, "\(report.checks.filter { !$0.met }) \(report.tries.filter { !$0.held }.map { "'\($0.lessonTry.keys)': \($0.verdict)" })")
        #expect(!report.tries.isEmpty, "every lesson has at least one try")

        try Self.golden.expect(Self.withoutKeyHashes(report.text), matches: id)
    }

    /// The text with each SHA-256 key hash (OkHttp's `sha256/`, curl's `sha256//`, Android's `SHA-256/`) as
    /// `<key hash>`: the world's keys are new on every run, and so are their hashes.
    static func withoutKeyHashes(_ text: String) -> String {
        text.replacing(#/(?<prefix>sha256//?|SHA-256/)[A-Za-z0-9+/]{43}=/#) { "\($0.prefix)<key hash>" }
    }
}
