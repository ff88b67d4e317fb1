import Foundation
import PKI
import Policies

/// One lesson's attack put in front of several client models, each a real run on 127.0.0.1 with the same
/// certificates: who catches the attack, at which step, and what the attacker read.
///
/// Each model gets the lesson's pins in its own terms (`Scenario.clientModel(in:)`); an AFNetworking row keeps
/// the lesson's other settings too (ATS, the challenge handler, the policy's flags), moved to its release as the
/// console's `L` key moves them.
public struct Comparison: Sendable {
    /// One client model's run.
    public struct Row: Sendable {
        public let client: ClientModelName
        /// The whole run, trace included, as `mitmsim run` would report the lesson with this client.
        public let report: RunReport

        public var trusted: Bool { report.trusted }
        /// The step that decided; nil when no chain was judged (the handshake failed first, or plain `http://` went out with no trust code).
        public var decidingCheck: TraceStep.Check? { report.decidingCheck }
        public var attackerSawPlaintext: Bool { report.result.attackerSawPlaintext }
    }

    /// The lesson as written, with `targetSdkVersion` when one was given.
    public let scenario: Scenario
    /// One row per client, in the order they were asked for.
    public let rows: [Row]
    /// The `targetSdkVersion` every Android row was given in place of the lesson's (`compare --target-sdk`).
    public let targetSdkVersion: Int?

    /// Runs the lesson's attack once per client: `clients`, else the lesson's `clients:`, else every model; the
    /// Android models (those reading `client.android`) as an app targeting `targetSdkVersion` when it is given.
    public init(scenario lesson: Scenario, clients: [ClientModelName]? = nil, targetSdkVersion: Int? = nil) throws {
        var scenario = lesson
        if let targetSdkVersion { scenario.client.peerOptions[AndroidLessonOptions.self].targetSdkVersion = targetSdkVersion }
        let world = try World(scenario)
        self.scenario = scenario
        self.targetSdkVersion = targetSdkVersion
        rows = try (clients ?? scenario.comparedClients).map { client in
            Row(client: client, report: try ScenarioRunner.run(Self.scenario(scenario, for: client), world: world))
        }
    }

    /// The rows whose model reads `client.android`: the ones `targetSdkVersion` changes.
    var androidRows: [ClientModelName] {
        rows.map(\.client).filter { client in
            scenario.client.libraries.library(of: client)?.lessonOptions.contains { $0 == AndroidLessonOptions.self } == true
        }
    }

    /// The lesson with `client` as its app: an AFNetworking release keeps the lesson's settings it has
    /// (`Scenario.running(_:)`); a peer library takes the lesson's pins.
    public static func scenario(_ lesson: Scenario, for client: ClientModelName) -> Scenario {
        if let release = client.afnetworking { return lesson.running(release).scenario }
        var scenario = lesson
        scenario.client.library = client
        return scenario
    }
}
