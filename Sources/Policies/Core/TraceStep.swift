/// One branch that `SecurityPolicy.evaluate(serverTrust:forDomain:)` or the iOS client around it took, with its sentence.
public struct TraceStep: Hashable, Sendable, CustomStringConvertible {
    /// A branch of a client's evaluation by its stable name ("chainTrust", "okHttpCertificatePinner"): what a
    /// trace line, JSON and a lesson's `decidingCheck:` write. Open, as the libraries are: each declares its
    /// own checks in its folder (`extension TraceStep.Check { public static let … }`, `TraceStep+OkHttp.swift`).
    public struct Check: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The stable name, which is also the declaration's name.
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }

        public var description: String { rawValue }
    }

    public enum Outcome: String, Hashable, Sendable {
        /// The check held; evaluation went on, or ended with YES.
        case passed
        /// The check failed; evaluation ended with NO.
        case failed
        /// The branch exists but was not taken, and the sentence says why.
        case skipped
        /// Information that decides nothing by itself (which trust policy was chosen).
        case note
    }

    public let check: Check
    public let outcome: Outcome
    /// One deterministic sentence that names certificates by label.
    public let detail: String

    public init(_ check: Check, _ outcome: Outcome, _ detail: String) {
        self.check = check
        self.outcome = outcome
        self.detail = detail
    }

    /// "[FAIL] chainTrust: …", the line the text report and the console show.
    public var description: String {
        let tag =
            switch outcome {
            case .passed: "pass"
            case .failed: "FAIL"
            case .skipped: "skip"
            case .note: "note"
            }
        return "[\(tag)] \(check.rawValue): \(detail)"
    }
}

extension TraceStep: Encodable {
    /// `{"check", "outcome", "detail"}`: how every JSON report writes a step.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(check.rawValue, forKey: .check)
        try container.encode(outcome.rawValue, forKey: .outcome)
        try container.encode(detail, forKey: .detail)
    }

    private enum CodingKeys: String, CodingKey { case check, outcome, detail }
}
