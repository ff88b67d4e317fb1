import PKI
import Policies

/// What one run of a client against an attack showed, the one shape every report reads: the client's
/// evaluation, the chain it was shown, whether the handshake completed, whether the attacker read the traffic,
/// and whether the bank received the request. A `RunReport` adds the lesson, the events and all the attacker
/// saw; a matrix's `Matrix.Cell` and an audit's `Audit.AttackVerdict` add the policy or the attack they ran.
public struct RunOutcome: Sendable {
    /// Nil when the client judged no chain: the handshake ended first, or `http://` went out with no trust code.
    public let evaluation: PolicyEvaluation?
    /// The chain the client was shown, leaf first (empty without TLS).
    public let presentedChain: [Certificate]
    public let handshakeCompleted: Bool
    /// The attacker decrypted the traffic.
    public let attackerSawPlaintext: Bool
    public let serverReceivedRequest: Bool

    /// The client's side of the run, with what the attacker and the bank saw of it.
    init(_ exchange: ScenarioRunner.Exchange, attackerSawPlaintext: Bool, serverReceivedRequest: Bool) {
        evaluation = exchange.evaluation
        presentedChain = exchange.presented
        handshakeCompleted = exchange.handshakeCompleted
        self.attackerSawPlaintext = attackerSawPlaintext
        self.serverReceivedRequest = serverReceivedRequest
    }

    public var trusted: Bool { evaluation?.isTrusted ?? false }
    /// The step that decided; nil when no chain was judged.
    public var decidingCheck: TraceStep.Check? { evaluation?.decidingStep?.check }

    /// "ACCEPTED at chainTrust", "REJECTED at pinnedPublicKeyMatch", or, with no deciding step, "NO VERDICT: "
    /// and `reason` (each table says in its own words why no chain was judged).
    func verdict(noVerdict reason: String) -> String {
        guard let decidingCheck else { return trusted ? "ACCEPTED" : "NO VERDICT: \(reason)" }
        return "\(trusted ? "ACCEPTED" : "REJECTED") at \(decidingCheck.rawValue)"
    }
}
