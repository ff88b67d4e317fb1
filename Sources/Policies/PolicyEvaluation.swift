import PKI

/// The verdict of `SecurityPolicy.evaluate(serverTrust:forDomain:)` and every branch that led to it.
///
/// A rejection is a value, not an error: the trace of a NO is the lesson.
public struct PolicyEvaluation: Sendable {
    public let steps: [TraceStep]
    /// The path the deciding evaluation built, leaf first; empty when the policy decided without
    /// evaluating the chain (contradictory settings, or mode none with allowInvalidCertificates).
    public let path: [Certificate]
    /// Nil exactly when the policy said YES.
    public let rejection: RejectionReason?

    public var isTrusted: Bool { rejection == nil }

    /// The step that settled the verdict: the last one that passed or failed.
    public var decidingStep: TraceStep? { steps.last { $0.outcome == .passed || $0.outcome == .failed } }
}
