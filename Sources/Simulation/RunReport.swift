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
    /// The client that judged, as the scenario built it.
    public let model: any ClientModel
    /// What the run showed, in the shape every report reads.
    public let result: RunOutcome
    /// The chain the real server sends.
    public let realChain: [Certificate]
    public let events: [NetworkEvent]
    public let attackerView: AttackerView
    /// The lesson's tries, each run from the lesson as written (empty unless the run asked for them).
    public var tries: [TryResult] = []
    /// What a monitor of the world's CT logs saw appear during the run ("CT monitor: …"); nil when nothing was logged.
    public let transparencyMonitor: String?

    /// One run: `exchanged` as the client saw it, with what the attacker and the bank saw.
    init(
        scenario: Scenario, model: any ClientModel, _ exchanged: ScenarioRunner.Exchange, realChain: [Certificate], events: [NetworkEvent],
        attackerView: AttackerView, serverReceivedRequest: Bool, transparencyMonitor: String? = nil
    ) {
        self.transparencyMonitor = transparencyMonitor
        self.scenario = scenario
        self.model = model
        result = RunOutcome(exchanged, attackerSawPlaintext: attackerView.sawPlaintext, serverReceivedRequest: serverReceivedRequest)
        self.realChain = realChain
        self.events = events
        self.attackerView = attackerView
    }

    /// Nil when the handshake ended before the client judged a chain.
    public var evaluation: PolicyEvaluation? { result.evaluation }
    /// The chain the client was shown, leaf first.
    public var presentedChain: [Certificate] { result.presentedChain }
    public var serverReceivedRequest: Bool { result.serverReceivedRequest }
    public var handshakeCompleted: Bool { result.handshakeCompleted }
    public var trusted: Bool { result.trusted }
    public var decidingCheck: TraceStep.Check? { result.decidingCheck }

    /// Each expectation of the scenario against what happened.
    public var checks: [Check] {
        let expect = scenario.expect
        var checks = [Check(name: "trusted", expected: "\(expect.trusted)", actual: "\(trusted)")]
        if let deciding = expect.decidingCheck {
            checks.append(Check(name: "decidingCheck", expected: deciding.rawValue, actual: decidingCheck?.rawValue ?? "none"))
        }
        checks.append(Check(name: "attackerSawPlaintext", expected: "\(expect.attackerSawPlaintext)", actual: "\(result.attackerSawPlaintext)"))
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

    /// The header lines every renderer shows above the trace, worded by the model that judged: for the iOS
    /// client the app, its ATS and its policy; for a peer library, the library and the lesson's pins it was given
    /// in its own terms.
    public var settingsLines: [String] { model.settingsLines(scenario.clientSettingsContext) }
}
