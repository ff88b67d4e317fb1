import ArgumentParser
import Policies
import Simulation

extension MitmSim {
    struct CompareCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "compare",
            abstract: "Run a lesson's attack once per client model (its clients: list, else every model), one row each.",
            discussion: "Each row is a real run: the verdict, the deciding step and what the attacker read. Exit status 2 on bad input.")

        @OptionGroup var options: ScenarioOptions

        @Argument(help: "A scenario id (see mitmsim list) or the path of a scenario file.")
        var scenario: String

        @Option(help: "Output format.")
        var format: ReportFormat = .text

        @Option(
            name: .customLong("target-sdk"),
            help:
                "Run the Android rows (the models that read client.android) as an app with this targetSdkVersion (1-\(NetworkSecurityConfig.latestTargetSdkVersion)) instead of the lesson's."
        )
        var targetSdk: Int?

        @Flag(help: "Put the attacker inside the app's process too: every runtime hook of the public unpinning tools (the console's F key).")
        var hooked = false

        func run() throws {
            let loaded = try options.load(scenario)
            let lesson = hooked ? loaded.hookingEveryTool : loaded
            let latest = NetworkSecurityConfig.latestTargetSdkVersion
            if let targetSdk, !(1...latest).contains(targetSdk) {
                throw BadInput("--target-sdk: expected an Android API level from 1 to \(latest), found \(targetSdk)")
            }
            let comparison: Comparison
            do {
                comparison = try Comparison(scenario: lesson, targetSdkVersion: targetSdk)
            } catch let error as ScenarioError {
                throw BadInput(error.description)  // it names the file and the key already
            } catch {
                throw BadInput("\(lesson.id): \(error)")
            }
            switch format {
            case .text: print(comparison.text, terminator: "")
            case .markdown: print(comparison.markdown, terminator: "")
            case .json: print(comparison.json)
            }
        }
    }
}
