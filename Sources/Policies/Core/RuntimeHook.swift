/// A patch to the app's own code by an attacker who controls its process (a jailbroken or rooted device
/// running Frida, as objection's `sslpinning disable` and HTTP Toolkit's unpinning scripts do), named after
/// the method the public tools patch. Open, as the libraries are: each declares its hooks in its folder
/// (`RuntimeHook+OkHttp.swift`); `Docs/peers.md` cites the tool source of each.
///
/// A hook changes the client's decision, never the network: the attack on the wire still happens.
public struct RuntimeHook: Hashable, Sendable, CustomStringConvertible {
    /// The name a lesson's `attacker.hooks` writes.
    public let name: String
    /// What the tools patch, as the trace names it: "-[AFSecurityPolicy setSSLPinningMode:]".
    public let target: String
    /// The check of the trace step that shows the hook.
    public let check: TraceStep.Check

    public init(_ name: String, target: String, check: TraceStep.Check) {
        self.name = name
        self.target = target
        self.check = check
    }

    public var description: String { name }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// A client whose code an attacker inside the app's process can patch.
public protocol HookableClient: ClientModel {
    /// The client with `hook` applied, and the note that says what the hook changed before any connection (nil
    /// when the hook acts during the evaluation, where the trace shows it); nil when nothing in this client
    /// goes through the hooked method.
    func applying(_ hook: RuntimeHook) -> (client: any ClientModel, note: TraceStep?)?
}

extension HookableClient {
    /// The client with `flag` set when `hook` is `target`, for a hook that acts during the evaluation (where the
    /// trace shows it); nil for any other hook.
    func setting(_ flag: WritableKeyPath<Self, Bool>, when hook: RuntimeHook, is target: RuntimeHook) -> (client: any ClientModel, note: TraceStep?)? {
        guard hook == target else { return nil }
        var client = self
        client[keyPath: flag] = true
        return (client, nil)
    }
}
