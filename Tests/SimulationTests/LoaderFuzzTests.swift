import Foundation
import Simulation
import TestSupport
import Testing

/// Thousands of lessons changed the ways careless and hostile authors change them, made the same way on
/// every run from one seed: each loads, or is refused in one line naming the file, and none costs much.
/// (`Docs/fuzzing.md` runs the same loader under libFuzzer for hours.)
struct LoaderFuzzTests {
    static let seed: UInt64 = 12
    static let inputs = Soak.size(500, long: 2_000)

    @Test func everyMutatedLessonLoadsOrIsRefusedInOneLineNamingTheFileAndNoneIsSlow() throws {
        let lessons = try CatalogTests.catalog.map { try String(contentsOfFile: "\(CatalogTests.scenarios)/\($0).yaml", encoding: .utf8) }
        let directory = NSTemporaryDirectory() + "mitmsim-fuzz-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var mutator = InputMutator(seed: Self.seed)
        var (loaded, refused, slowest) = (0, 0, 0.0)
        for index in 0..<Self.inputs {
            // A new file each time: rewriting one file in place makes ext4 flush it to disk, milliseconds per input.
            let file = directory + "/fuzzed-\(index).yaml"
            defer { unlink(file) }
            try Data(mutator.scenario(from: lessons[index % lessons.count])).write(to: URL(fileURLWithPath: file))
            let start = Date()
            do {
                _ = try ScenarioLoader.load(file)
                loaded += 1
            } catch let error as ScenarioError {
                refused += 1
                #expect(error.description.hasPrefix(file + ": "), "input \(index): \(error)")
                #expect(!error.description.contains { $0.isNewline }, "input \(index): \(error)")
            } catch {
                Issue.record("input \(index) (seed \(Self.seed)) threw \(type(of: error)), not a ScenarioError: \(error)")
            }
            slowest = max(slowest, Date().timeIntervalSince(start))
        }
        // Generous: a load costs milliseconds; an alias bomb that got through would cost seconds.
        #expect(slowest < 2, "the slowest input took \(slowest) s")
        // The mutations reach both outcomes, so neither branch is left untested.
        #expect(loaded > Self.inputs / 20 && refused > Self.inputs / 2, "\(loaded) loaded, \(refused) refused")
    }
}
