import Foundation
import Simulation
import Testing

/// Every lesson in `Scenarios/` runs for real, meets its `expect`, and reads exactly as its golden file.
///
/// Re-record the golden files after an intended change with `MITMSIM_RECORD_GOLDEN=1 swift test`.
struct CatalogTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let scenarios = root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios").path
    static let golden = root.appendingPathComponent("Golden")
    static let catalog: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: scenarios)) ?? [])
        .filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()

    @Test func theCatalogHasAtLeastTwentyFourLessonsInSeveralGroups() throws {
        let loaded = try ScenarioLoader.loadAll(in: Self.scenarios)
        #expect(loaded.count >= 24)
        #expect(Set(loaded.map(\.group)).count >= 4)
        #expect(loaded.allSatisfy { !$0.lesson.isEmpty && !$0.summary.isEmpty })
    }

    @Test(arguments: catalog)
    func theLessonMeetsItsExpectationsAndReadsAsRecorded(_ id: String) throws {
        let report = try ScenarioRunner.run(ScenarioLoader.load("\(Self.scenarios)/\(id).yaml"))
        #expect(report.expectationsMet, "\(report.checks.filter { !$0.met })")

        let file = Self.golden.appendingPathComponent("\(id).txt")
        if ProcessInfo.processInfo.environment["MITMSIM_RECORD_GOLDEN"] == "1" {
            try report.text.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let recorded = try #require(try? String(contentsOf: file, encoding: .utf8), "no golden file \(file.path): record it with MITMSIM_RECORD_GOLDEN=1 swift test")
        #expect(report.text == recorded, "\(Self.diff(recorded, report.text))")
    }

    /// The lines that differ, marked - (recorded) and + (now), with their line numbers.
    static func diff(_ recorded: String, _ now: String) -> String {
        let old = recorded.components(separatedBy: "\n"), new = now.components(separatedBy: "\n")
        return (0..<max(old.count, new.count)).compactMap { index -> String? in
            let before = index < old.count ? old[index] : nil, after = index < new.count ? new[index] : nil
            guard before != after else { return nil }
            return [before.map { "-\(index + 1): \($0)" }, after.map { "+\(index + 1): \($0)" }].compactMap { $0 }.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
