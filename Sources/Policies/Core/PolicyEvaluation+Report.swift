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
    struct PathEntry: Encodable { let subject: String, sha256: String }

    let trusted: Bool
    let steps: [TraceStep]
    let path: [PathEntry]
    /// Null when trusted.
    let reason: Nullable<String>
    /// Null when trusted, or when no app is modelled.
    let urlError: Nullable<NSURLError>

    init(_ evaluation: PolicyEvaluation) {
        trusted = evaluation.isTrusted
        steps = evaluation.steps
        path = evaluation.path.map { PathEntry(subject: $0.subject.description, sha256: $0.sha256Hex) }
        reason = Nullable(evaluation.rejection?.code)
        urlError = Nullable(evaluation.urlError)
    }
}
