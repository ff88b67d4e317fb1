import Foundation
import Simulation

/// The lessons of `Scenarios/`, read once per test process: many suites read every lesson (the console's screens,
/// the lesson texts, the catalog's runs), and each reading of the whole catalog costs a third of a second of YAML.
/// Suites that test the reading itself (`ScenarioCatalogTests`, the loader's tests) read the files anew.
public enum Lessons {
    /// The `Scenarios` directory of the package.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios").path

    /// Every lesson of `directory`, in the catalog's order.
    // try!: the catalog's own tests fail with the loader's message when a lesson does not load; every suite here needs it.
    public static let all: [Scenario] = try! ScenarioLoader.loadAll(in: directory)

    /// The lesson `id` of `all`.
    public static func lesson(_ id: String) -> Scenario? { all.first { $0.id == id } }
}
