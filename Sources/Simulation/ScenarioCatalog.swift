import Foundation
import ScenarioFiles

/// A set of lessons to list, load by id and run: the catalog built into mitmsim, or a directory of
/// scenario files.
///
/// The built-in catalog is `Scenarios/*.yaml` compiled into code at build time (the `ScenarioFiles`
/// module), so a binary copied anywhere, or a package that depends on this one, has every lesson
/// without a path into the source tree.
public struct ScenarioCatalog: Sendable, CustomStringConvertible {
    private enum Storage: Sendable {
        case builtIn
        case directory(String)
    }

    private let storage: Storage

    /// The lessons in the package's `Scenarios/` directory when this mitmsim was built.
    public static let builtIn = ScenarioCatalog(storage: .builtIn)

    /// The `*.yaml` files in `path`; nothing is read until a lesson is loaded.
    public static func directory(_ path: String) -> ScenarioCatalog {
        ScenarioCatalog(storage: .directory(path))
    }

    /// "the catalog built into mitmsim", or the directory's path: how messages name this catalog.
    public var description: String {
        switch storage {
        case .builtIn: "the catalog built into mitmsim"
        case .directory(let path): path
        }
    }

    /// Every lesson, in file-name order (the catalog order).
    public func loadAll() throws -> [Scenario] { try readers().map { try $0() } }

    /// The first lesson in catalog order that `matches`, or nil; the lessons after it are not read, so a default
    /// lesson (the first, the first with a forging attacker) costs one lesson's reading, not the catalog's.
    public func first(where matches: (Scenario) -> Bool) throws -> Scenario? {
        for read in try readers() {
            let lesson = try read()
            if matches(lesson) { return lesson }
        }
        return nil
    }

    /// One reader per lesson, in catalog order; no lesson is read until its reader is called.
    private func readers() throws -> [() throws -> Scenario] {
        switch storage {
        case .builtIn: embeddedScenarioFiles.map { file in { try Self.decode(file) } }
        case .directory(let path): try ScenarioLoader.files(in: path).map { name in { try ScenarioLoader.load(path + "/" + name) } }
        }
    }

    /// A lesson by id (`03-installed-attacker-ca`). A name that contains `/` or ends in `.yaml` is a
    /// file path and always loads that file, whichever catalog this is.
    public func load(_ name: String) throws -> Scenario {
        if name.hasSuffix(".yaml") || name.contains("/") { return try ScenarioLoader.load(name) }
        switch storage {
        case .builtIn:
            guard let file = embeddedScenarioFiles.first(where: { $0.name == name + ".yaml" }) else {
                throw ScenarioError(file: description, path: "", reason: "no scenario '\(name)' (mitmsim list shows the ids)")
            }
            return try Self.decode(file)
        case .directory(let path):
            let file = path + "/" + name + ".yaml"
            guard FileManager.default.fileExists(atPath: file) else {
                throw ScenarioError(file: path, path: "", reason: "no scenario '\(name)' here (the ids are its *.yaml files' names)")
            }
            return try ScenarioLoader.load(file)
        }
    }

    /// Errors name a built-in lesson `catalog:03-x.yaml`: its file, marked as not on disk.
    private static func decode(_ file: (name: String, text: String)) throws -> Scenario {
        try ScenarioLoader.decode(Data(file.text.utf8), file: "catalog:" + file.name, id: String(file.name.dropLast(".yaml".count)))
    }
}
