/// What the walkthrough says once the settings on screen are no longer the lesson's: which settings
/// differ, that the lesson's text describes its own settings, and what decides now, in the engine's words.
public struct LessonDeparture: Sendable, Equatable {
    /// Each setting that differs from the lesson, "allowInvalidCertificates NO → YES".
    public let changes: [String]
    /// The deciding trace step's sentence for the edited settings, or why no step decided.
    public let deciding: String

    /// Nil when `report` ran the lesson's own settings.
    public init?(_ report: RunReport, lesson: Scenario) {
        changes = report.scenario.changes(from: lesson)
        guard !changes.isEmpty else { return nil }
        deciding = report.evaluation.map { $0.decidingStep.map { "Now: \($0)" } ?? "Now: no step of the trace decided." } ?? "Now: " + RunReport.noChainJudged
    }

    /// "changed from the lesson: allowInvalidCertificates NO → YES".
    public var summary: String { "changed from the lesson: " + changes.joined(separator: ", ") }

    /// Said above the lesson's story while the settings differ from the lesson's: why its explanation is
    /// not shown (it would contradict the run on screen), and how to get it back.
    public static let staleLessonText =
        "The lesson's explanation was written for its own settings, not these, so only its story is shown. r returns to the lesson as written."
}
