import Policies

/// A lesson's text in Markdown: what is shown before the class predicts the verdict, and what after.
public struct Lesson: Sendable, Decodable, Equatable {
    /// The situation and the question; it must not give away the verdict, the deciding step or the loot.
    public var story: String
    /// What the trace and the events show, and the takeaway, as the file writes it (`Scenario.revealText` adds
    /// the tries).
    public var reveal: String
    /// The keys the learner is invited to press after the reveal, each with the verdict that follows.
    public var tries: [LessonTry]

    enum CodingKeys: String, CodingKey, CaseIterable { case story, reveal, tries }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        story = try container.decodeValue(String.self, forKey: .story)
        reveal = try container.decodeValue(String.self, forKey: .reveal)
        tries = try container.decodeIfPresent([LessonTry].self, forKey: .tries) ?? []
    }
}
