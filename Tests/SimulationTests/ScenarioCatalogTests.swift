import Foundation
import Simulation
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
}
