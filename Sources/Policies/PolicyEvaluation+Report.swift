import Foundation
import PKI

extension PolicyEvaluation {
    /// The verdict line: "TRUSTED (decided at chainTrust)", "NOT TRUSTED: untrustedRoot (decided at chainTrust)",
    /// and for the iOS client what the app's task fails with: "…, NSURLError -999 NSURLErrorCancelled".
    public var verdict: String {
        decision + (urlError.map { ", \($0)" } ?? "")
    }

    /// The verdict without the error the app sees: what the network transcript says the client decided.
    public var decision: String {
        (rejection.map { "NOT TRUSTED: \($0.code)" } ?? "TRUSTED") + (decidingStep.map { " (decided at \($0.check.rawValue))" } ?? "")
    }

    /// Verdict, every step, and the path: the text a learner reads. Steps and the path name certificates by
    /// their labels and subjects, which a certificate file chooses, so each line is escaped as one line.
    public var text: String {
        ([verdict] + steps.map { "  \($0)" } + ["path: \(path.pathDescription)"]).map { TerminalText.escaped($0) }.joined(separator: "\n")
    }

    /// `{"trusted", "steps": [{"check", "outcome", "detail"}], "path": [{"subject", "sha256"}], "reason",
    /// "urlError": {"code", "name"}}`, keys sorted.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and booleans cannot fail.
        return TerminalText.escapedJSON(String(decoding: try! encoder.encode(JSONReport(self)), as: UTF8.self))
    }
}

private struct JSONReport: Encodable {
    struct Step: Encodable { let check: String, outcome: String, detail: String }
    struct PathEntry: Encodable { let subject: String, sha256: String }
    struct URLError: Encodable { let code: Int, name: String }

    let trusted: Bool
    let steps: [Step]
    let path: [PathEntry]
    let reason: String?
    let urlError: URLError?

    init(_ evaluation: PolicyEvaluation) {
        trusted = evaluation.isTrusted
        steps = evaluation.steps.map { Step(check: $0.check.rawValue, outcome: $0.outcome.rawValue, detail: $0.detail) }
        path = evaluation.path.map { PathEntry(subject: $0.subject.description, sha256: $0.sha256Hex) }
        reason = evaluation.rejection?.code
        urlError = evaluation.urlError.map { URLError(code: $0.code, name: $0.name) }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(trusted, forKey: .trusted)
        try container.encode(steps, forKey: .steps)
        try container.encode(path, forKey: .path)
        try container.encode(reason, forKey: .reason)  // null, not absent, when trusted
        try container.encode(urlError, forKey: .urlError)  // null when trusted or when no app is modelled
    }

    enum CodingKeys: String, CodingKey { case trusted, steps, path, reason, urlError }
}
