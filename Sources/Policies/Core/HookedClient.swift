/// A client model with the attacker's runtime hooks applied: each hook patches the model it finds (its
/// `HookableClient.applying(_:)`), and a hook that finds nothing to patch says so in the trace instead.
public struct HookedClient: ClientModel {
    /// The client as the lesson wrote it, whose settings a run shows.
    public let original: any ClientModel
    /// The client as the hooks left it.
    public let client: any ClientModel
    public let hooks: [RuntimeHook]
    /// What each hook did before any connection, in the order the hooks were given.
    let notes: [TraceStep]

    /// `model` with `hooks` applied in order; `displayName` names the client in the sentence of a hook that misses.
    public init(_ model: any ClientModel, hooks: [RuntimeHook], displayName: String) {
        var client = model
        var notes: [TraceStep] = []
        for hook in hooks {
            if let hookable = client as? any HookableClient, let applied = hookable.applying(hook) {
                client = applied.client
                notes += applied.note.map { [$0] } ?? []
            } else {
                notes.append(
                    TraceStep(
                        hook.check, .skipped,
                        "\(hook.target) is hooked, but \(displayName)'s decision never goes through it, so the hook changes nothing"))
            }
        }
        self.original = model
        self.client = client
        self.hooks = hooks
        self.notes = notes
    }

    /// The hooks' notes, then the patched client's own evaluation.
    public func evaluate(_ connection: PresentedConnection) -> PolicyEvaluation {
        let evaluation = client.evaluate(connection)
        return PolicyEvaluation(steps: notes + evaluation.steps, path: evaluation.path, rejection: evaluation.rejection, urlError: evaluation.urlError)
    }

    /// Before any connection the hooks decide nothing: no tool's hook patches a rule about the URL's scheme.
    public func evaluateLoad(scheme: String, host: String) -> PolicyEvaluation? {
        client.evaluateLoad(scheme: scheme, host: host)
    }

    /// The client's lines as the lesson set it, then the hooks.
    public func settingsLines(_ context: ClientSettingsContext) -> [String] {
        original.settingsLines(context) + ["Attacker inside the app's process, hooking: " + hooks.map(\.target).joined(separator: ", ")]
    }
}
