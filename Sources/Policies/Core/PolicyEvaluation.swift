import PKI

/// The verdict of `SecurityPolicy.evaluate(serverTrust:forDomain:)`, or of the whole iOS client
/// (`IOSClient`), and every branch that led to it.
///
/// A rejection is a value, not an error: the trace of a NO is the lesson.
public struct PolicyEvaluation: Sendable {
    public let steps: [TraceStep]
    /// The path the deciding evaluation built, leaf first; empty when the policy decided without
    /// evaluating the chain (contradictory settings, or mode none with allowInvalidCertificates).
    public let path: [Certificate]
    /// Nil exactly when the policy said YES.
    public let rejection: RejectionReason?
    /// What the app's task fails with when the iOS client refused; nil when it did not, and for a policy
    /// evaluated on its own (no app, so no URLSession task).
    public let urlError: NSURLError?

    /// A verdict and its steps, as a model makes it (a model outside mitmsim too: `ClientLibrary` takes any).
    public init(steps: [TraceStep], path: [Certificate], rejection: RejectionReason?, urlError: NSURLError? = nil) {
        self.steps = steps
        self.path = path
        self.rejection = rejection
        self.urlError = urlError
    }

    public var isTrusted: Bool { rejection == nil }

    /// The step that settled the verdict: the last one that passed or failed.
    public var decidingStep: TraceStep? { steps.last { $0.outcome == .passed || $0.outcome == .failed } }

    /// The same evaluation with `step` added at the end: for what happens after the verdict, such as the
    /// client-certificate challenge of two-way TLS. Only a note may be added, so the verdict cannot change.
    public func appending(_ step: TraceStep) -> PolicyEvaluation {
        precondition(step.outcome == .note, "a step added after the verdict must be a note")
        return PolicyEvaluation(steps: steps + [step], path: path, rejection: rejection, urlError: urlError)
    }
}
