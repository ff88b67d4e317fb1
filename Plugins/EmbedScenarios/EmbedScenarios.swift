import Foundation
import PackagePlugin

/// Compiles the `*.yaml` files of the target that uses this plugin into one Swift source, so every build
/// of mitmsim carries its lessons: a copied binary needs neither the source tree nor a resource bundle.
///
/// The target is `Scenarios/` itself, so SwiftPM watches that directory: adding or removing a lesson
/// plans the build again (and runs this plugin), and each lesson is a declared input, so editing one
/// regenerates the source.
@main
struct EmbedScenarios: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let module = target.sourceModule else { return [] }
        let lessons = module.sourceFiles(withSuffix: "yaml").map(\.url).sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedScenarioFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(lessons.count) lessons into \(target.name)",
                executable: try context.tool(named: "EmbedScenariosTool").url,
                arguments: [output.path] + lessons.map(\.path),
                inputFiles: lessons,
                outputFiles: [output])
        ]
    }
}
