import Foundation
import Simulation
import TestSupport
import Testing

/// The catalog built into the module is exactly `Scenarios/` as it is on disk, and it names what it
/// cannot find.
struct ScenarioCatalogTests {
    @Test func theBuiltInCatalogHoldsEveryLessonOfTheScenariosDirectoryInOrder() throws {
        let builtIn = try ScenarioCatalog.builtIn.loadAll()
        let onDisk = try ScenarioCatalog.directory(CatalogTests.scenarios).loadAll()
        #expect(builtIn.map(\.id) == CatalogTests.catalog)
        #expect(builtIn.map(\.id) == onDisk.map(\.id))
        #expect(builtIn.map(\.title) == onDisk.map(\.title))
        #expect(builtIn.map(\.lesson) == onDisk.map(\.lesson))
    }

    @Test func aBuiltInLessonRunsExactlyAsItsFileDoes() throws {
        let id = try #require(CatalogTests.catalog.first)
        let builtIn = try ScenarioRunner.run(ScenarioCatalog.builtIn.load(id))
        let file = try ScenarioRunner.run(ScenarioLoader.load("\(CatalogTests.scenarios)/\(id).yaml"))
        #expect(builtIn.scenario.id == id)
        #expect(builtIn.text == file.text)
    }

    @Test func aPathLoadsThatFileFromAnyCatalog() throws {
        let id = try #require(CatalogTests.catalog.last)
        let path = "\(CatalogTests.scenarios)/\(id).yaml"
        #expect(try ScenarioCatalog.builtIn.load(path).id == id)
        #expect(try ScenarioCatalog.directory(NSTemporaryDirectory()).load(path).id == id)
    }

    @Test func anUnknownIdNamesTheCatalogOrTheDirectoryItWasLookedFor() {
        #expect(throws: ScenarioError(file: "the catalog built into mitmsim", path: "", reason: "no scenario 'no-such-lesson' (mitmsim list shows the ids)")) {
            try ScenarioCatalog.builtIn.load("no-such-lesson")
        }
        #expect(
            throws: ScenarioError(file: CatalogTests.scenarios, path: "", reason: "no scenario 'no-such-lesson' here (the ids are its *.yaml files' names)")
        ) {
            try ScenarioCatalog.directory(CatalogTests.scenarios).load("no-such-lesson")
        }
    }
    /// `mitmsim lab` and `mitmsim matrix` without a lesson take the first that fits: finding it reads the lessons up to it,
    /// not the whole catalog. Shown with a directory whose second file is not a lesson: every lesson before it is found,
    /// and only a search that reaches it fails.
    @Test func theFirstLessonThatFitsIsFoundWithoutReadingTheLessonsAfterIt() throws {
        let directory = NSTemporaryDirectory() + "mitmsim-first-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try #require(CatalogTests.catalog.first)
        try FileManager.default.copyItem(atPath: "\(CatalogTests.scenarios)/\(first).yaml", toPath: "\(directory)/\(first).yaml")
        try Data("version: [".utf8).write(to: URL(fileURLWithPath: "\(directory)/zz-broken.yaml"))
        let catalog = ScenarioCatalog.directory(directory)
        #expect(try catalog.first { _ in true }?.id == first)
        #expect(throws: ScenarioError.self) { try catalog.first { _ in false } }
        #expect(throws: ScenarioError.self) { try catalog.loadAll() }
        #expect(
            try ScenarioCatalog.builtIn.first { $0.attacker.attack == .forge }?.id
                == Lessons.all.first { $0.attacker.attack == .forge }?.id)
    }
}
