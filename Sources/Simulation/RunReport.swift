import LoopbackTLS
import PKI
import Policies

/// Everything one run showed: the network events, the policy's trace, what the attacker got, and
/// whether the scenario's expectations held.
public struct RunReport: Sendable {
    public struct Check: Sendable, Equatable {
        public let name: String
        public let expected: String
        public let actual: String
        public var met: Bool { expected == actual }
    }

    public let scenario: Scenario
    /// Nil when the handshake ended before the client judged a chain.
    public let evaluation: PolicyEvaluation?
    /// The chain the client was shown (leaf first), and the chain the real server sends.
    public let presentedChain: [Certificate]
    public let realChain: [Certificate]
    public let events: [NetworkEvent]
    public let attackerView: AttackerView
    public let serverReceivedRequest: Bool
    public let handshakeCompleted: Bool

    public var trusted: Bool { evaluation?.isTrusted ?? false }
    public var decidingCheck: TraceStep.Check? { evaluation?.decidingStep?.check }

    /// Each expectation of the scenario against what happened.
    public var checks: [Check] {
        let expect = scenario.expect
        var checks = [Check(name: "trusted", expected: "\(expect.trusted)", actual: "\(trusted)")]
        if let deciding = expect.decidingCheck {
            checks.append(Check(name: "decidingCheck", expected: deciding.rawValue, actual: decidingCheck?.rawValue ?? "none"))
        }
        checks.append(Check(name: "attackerSawPlaintext", expected: "\(expect.attackerSawPlaintext)", actual: "\(attackerView.sawPlaintext)"))
        checks.append(Check(name: "serverReceivedRequest", expected: "\(expect.serverReceivedRequest)", actual: "\(serverReceivedRequest)"))
        return checks
    }

    public var expectationsMet: Bool { checks.allSatisfy(\.met) }

    /// "ACCEPTED (decided at chainTrust)": the verdict line every renderer shows.
    public var verdict: String {
        guard let evaluation else { return "NO VERDICT: the connection failed before the client saw a chain" }
        let decided = evaluation.decidingStep.map { " at \($0.check.rawValue)" } ?? ""
        return (evaluation.isTrusted ? "ACCEPTED" : "REJECTED") + decided
    }

    /// The consequences in plain words: the handshake, the attacker, the bank.
    public var outcome: [String] {
        var lines: [String] = []
        if trusted, !handshakeCompleted { lines.append("The policy accepted the chain, but the TLS handshake still failed.") }
        lines.append(attackerView.summary(secret: scenario.request.secret))
        lines.append(serverReceivedRequest ? "The bank received the request." : "The bank never received the request.")
        return lines
    }

    /// How the client's policy was set and on which iOS, as one line.
    public var policyDescription: String {
        let policy = scenario.client.policy
        let pinned = policy.pinnedCertificates.isEmpty ? "nothing pinned" : "pinned " + policy.pinnedCertificates.map { "'\($0)'" }.joined(separator: ", ")
        let domain = scenario.client.passesDomain ? "domain '\(scenario.server.host)'" : "domain nil"
        return "pinning mode \(policy.pinningMode), allowInvalidCertificates \(policy.allowInvalidCertificates ? "YES" : "NO"), "
            + "validatesDomainName \(policy.validatesDomainName ? "YES" : "NO"), \(pinned), \(domain), \(scenario.client.platform.name)"
    }
}
