import Policies

/// One client library as mitmsim knows it, described once: its model names (in `compare` order), the checks
/// its traces use, the settings it reads from a lesson's client block, how it builds a model from a lesson,
/// and the judges it adds to an audit from an app's configuration files. Each library's description lives
/// in its own file (`ClientLibrary+OkHttp.swift`); `ClientLibraries` is the registry that holds them, which
/// code outside mitmsim extends with `adding(_:)`.
public struct ClientLibrary: Sendable {
    /// One model of the library: its name, and how a lesson becomes that model.
    public struct Model: Sendable {
        public let name: ClientModelName
        /// The model with the lesson's settings and pins, the certificates taken from `world`; a lesson it cannot
        /// take throws a `ScenarioError` naming the key.
        public let build: @Sendable (Scenario, World) throws -> any ClientModel

        public init(_ name: ClientModelName, build: @escaping @Sendable (Scenario, World) throws -> any ClientModel) {
            self.name = name
            self.build = build
        }
    }

    /// "OkHttp": how messages name the library.
    public let name: String
    /// Its models, in the order `compare` runs them.
    public let models: [Model]
    /// Every check its models' traces use, as a lesson's `decidingCheck:` may name them.
    public let checks: [TraceStep.Check]
    /// The settings it reads from its own keys of a lesson's client block (`client.trustKit`).
    public let lessonOptions: [any LessonOptions.Type]
    /// The runtime hooks of the public tools that patch its code, as a lesson's `attacker.hooks` may name them
    /// (each hook's check is among `checks`).
    public let hooks: [RuntimeHook]
    /// The judges it adds to an audit, built from the configuration files given (none when it reads none of them).
    public let auditJudges: @Sendable (AuditConfiguration) throws -> [AuditJudge]
    /// Keys of the client block, beyond `library`, `policy` and the lesson options, that its models read: the iOS
    /// client's (ATS, the challenge handler, …), which `ClientSpec` decodes for every lesson.
    let clientKeys: Set<String>

    public init(
        name: String, models: [Model], checks: [TraceStep.Check], lessonOptions: [any LessonOptions.Type] = [], hooks: [RuntimeHook] = [],
        auditJudges: @escaping @Sendable (AuditConfiguration) throws -> [AuditJudge] = { _ in [] }
    ) {
        self.init(name: name, models: models, checks: checks, lessonOptions: lessonOptions, hooks: hooks, clientKeys: [], auditJudges: auditJudges)
    }

    init(
        name: String, models: [Model], checks: [TraceStep.Check], lessonOptions: [any LessonOptions.Type], hooks: [RuntimeHook] = [], clientKeys: Set<String>,
        auditJudges: @escaping @Sendable (AuditConfiguration) throws -> [AuditJudge]
    ) {
        self.name = name
        self.models = models
        self.checks = checks
        self.lessonOptions = lessonOptions
        self.hooks = hooks
        self.clientKeys = clientKeys
        self.auditJudges = auditJudges
    }
}
