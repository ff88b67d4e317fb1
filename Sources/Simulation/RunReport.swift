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

    /// One of the lesson's tries, pressed and run: what followed, and whether it is what the try says.
    public struct TryResult: Sendable {
        public let lessonTry: LessonTry
        public let trusted: Bool
        public let decidingCheck: TraceStep.Check?
        public let attackerReadSecret: Bool
        /// "REJECTED at atsServerTrust": the run's verdict after the keys.
        public let verdict: String

        /// True when the verdict, the deciding check and (if the try names it) what the attacker read are the try's.
        public var held: Bool {
            trusted == lessonTry.trusted && (lessonTry.decidingCheck.map { $0 == decidingCheck } ?? true)
                && (lessonTry.attackerReadSecret.map { $0 == attackerReadSecret } ?? true)
        }

        public init(_ lessonTry: LessonTry, _ report: RunReport) {
            self.lessonTry = lessonTry
            trusted = report.trusted
            decidingCheck = report.decidingCheck
            attackerReadSecret = report.attackerView.readSecret
            verdict = report.verdict
        }
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
    /// The lesson's tries, each run from the lesson as written (empty unless the run asked for them).
    public var tries: [TryResult] = []

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

    /// Every expectation met, and every try run held.
    public var expectationsMet: Bool { checks.allSatisfy(\.met) && tries.allSatisfy(\.held) }

    /// "ACCEPTED at chainTrust": the verdict line every renderer shows.
    public var verdict: String {
        guard let evaluation else {
            // Only a peer library sends http:// without a verdict: no ATS, no TLS, nothing to judge.
            let why =
                scenario.request.scheme == .http
                ? "the request went out in plain text, and no trust code ran" : "the connection failed before the app saw a chain"
            return "\(verdictWord): \(why)"
        }
        return verdictWord + (evaluation.decidingStep.map { " at \($0.check.rawValue)" } ?? "")
    }

    /// "ACCEPTED", "REJECTED", "NO VERDICT" (the handshake failed before a chain was judged) or "NO TLS" (plain
    /// `http://` sent by a peer library, which judges nothing): the verdict without its reason.
    public var verdictWord: String {
        guard let evaluation else { return scenario.request.scheme == .http ? "NO TLS" : "NO VERDICT" }
        return evaluation.isTrusted ? "ACCEPTED" : "REJECTED"
    }

    /// The consequences in plain words: the handshake, the attacker, the bank.
    public var outcome: [String] {
        var lines: [String] = []
        if let error = evaluation?.urlError { lines.append("The app's request fails with \(error).") }
        if scenario.request.scheme == .http {
            if evaluation?.isTrusted != false { lines.append("There is no TLS: the request goes out in plain text.") }
        } else if trusted, !handshakeCompleted {
            lines.append("The app accepted the chain, but the TLS handshake still failed.")
        }
        lines.append(attackerView.summary(secret: scenario.request.secret))
        lines.append(serverReceivedRequest ? "The bank received the request." : "The bank never received the request.")
        return lines
    }

    /// The app around the policy, as one line: its AFNetworking, who answers the challenge, which iOS; for a
    /// peer library, the library.
    public var clientDescription: String {
        let client = scenario.client
        guard client.library.afnetworking != nil else { return client.library.displayName }
        return "\(client.library.displayName); \(client.challengeHandler.phrase); \(client.platform.name)"
    }

    /// How the client's policy was set, as one line (only the properties its AFNetworking has; for a peer
    /// library, the lesson's pins).
    public var policyDescription: String {
        let client = scenario.client
        let policy = client.policy
        let pinned = policy.pinnedCertificates.isEmpty ? "nothing pinned" : "pinned " + policy.pinnedCertificates.map { "'\($0)'" }.joined(separator: ", ")
        guard let release = client.library.afnetworking else { return "pinning mode \(policy.pinningMode), \(pinned)" }
        let domain = client.passesDomain ? "domain '\(scenario.server.host)'" : "domain nil"
        var settings = ["pinning mode \(policy.pinningMode)", "allowInvalidCertificates \(policy.allowInvalidCertificates ? "YES" : "NO")"]
        if release.hasValidatesDomainName { settings.append("validatesDomainName \(policy.validatesDomainName ? "YES" : "NO")") }
        if release.hasValidatesCertificateChain {
            settings.append("validatesCertificateChain \(policy.validatesCertificateChain ? "YES" : "NO")")
        }
        return (settings + [pinned, domain]).joined(separator: ", ")
    }

    /// The header lines every renderer shows above the trace: the app, its ATS, its policy; for a peer
    /// library, the library and the lesson's pins it was given in its own terms.
    public var settingsLines: [String] {
        guard scenario.client.library.afnetworking != nil else {
            return ["App: \(clientDescription)", "The lesson's pins, in \(clientDescription)'s terms: \(policyDescription)"]
        }
        return ["App: \(clientDescription)", "ATS: \(scenario.client.ats.summary)", "AFSecurityPolicy: \(policyDescription)"]
    }
}
