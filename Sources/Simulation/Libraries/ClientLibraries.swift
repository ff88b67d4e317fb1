import Policies

/// The registry of client libraries a lesson, `compare` and `audit` may use: mitmsim's own (`builtIn`), plus any
/// that code outside mitmsim adds. A value, handed to `ScenarioLoader` and `AuditConfiguration`, so what one
/// caller adds changes nothing for another.
public struct ClientLibraries: Sendable {
    /// In registration order: `compare` runs their models in this order.
    public let libraries: [ClientLibrary]

    /// mitmsim's libraries: the AFNetworking releases newest first (the whole iOS client), then the peers.
    public static let builtIn = ClientLibraries(libraries: [.afNetworking, .alamofire, .trustKit, .okHttp, .android, .curl])

    /// The model names by the text files write.
    let modelChoices: [String: ClientModelName]
    /// Every library's checks, by name: what a lesson's `decidingCheck:` may say.
    let checkChoices: [String: TraceStep.Check]
    /// Every library's runtime hooks, by name: what a lesson's `attacker.hooks` may say.
    let hookChoices: [String: RuntimeHook]

    private init(libraries: [ClientLibrary]) {
        self.libraries = libraries
        modelChoices = Dictionary(libraries.flatMap { $0.models.map { ($0.name.rawValue, $0.name) } }, uniquingKeysWith: { first, _ in first })
        checkChoices = Dictionary(libraries.flatMap(\.checks).map { ($0.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
        hookChoices = Dictionary(libraries.flatMap(\.hooks).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// These libraries and `library` after them. Its model names must be new: two models under one name is a
    /// programming error, caught here rather than by a lesson that picks the wrong one.
    public func adding(_ library: ClientLibrary) -> ClientLibraries {
        let taken = Set(modelNames)
        precondition(library.models.allSatisfy { !taken.contains($0.name) }, "\(library.name) reuses a registered client model name")
        return ClientLibraries(libraries: libraries + [library])
    }

    /// Every model name, in `compare` order.
    public var modelNames: [ClientModelName] { libraries.flatMap { $0.models.map(\.name) } }

    /// Every runtime hook, in registration order: what the console's `F` key turns on.
    public var hooks: [RuntimeHook] { libraries.flatMap(\.hooks) }

    /// The hooks `names` name, in their order; nil when one is not a hook.
    func hooks(named names: [String]) -> [RuntimeHook]? {
        let hooks = names.compactMap { hookChoices[$0] }
        return hooks.count == names.count ? hooks : nil
    }

    /// Every name, in `compare` order, as error messages list them.
    public var names: String { modelNames.map(\.rawValue).joined(separator: ", ") }

    /// The model `name` names, nil when no library has it.
    public func model(named name: ClientModelName) -> ClientLibrary.Model? {
        libraries.lazy.flatMap(\.models).first { $0.name == name }
    }

    /// The library whose model `name` is.
    func library(of name: ClientModelName) -> ClientLibrary? {
        libraries.first { $0.models.contains { $0.name == name } }
    }

    /// Every lesson option, once per key, in registration order.
    var lessonOptions: [any LessonOptions.Type] {
        var seen = Set<String>()
        return libraries.flatMap(\.lessonOptions).filter { seen.insert($0.key).inserted }
    }
}
