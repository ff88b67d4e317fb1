extension Scenario {
    /// The reveal as the learner reads it: the file's reveal, then one "Try:" paragraph per try, worded by the engine.
    public var revealText: String {
        ([lesson.reveal.trimmingCharacters(in: .whitespacesAndNewlines)] + lesson.tries.map { $0.sentence(for: self) })
            .filter { !$0.isEmpty }.joined(separator: "\n\n")
    }

    /// The story and the reveal with its tries, as a reader who needs no suspense reads them.
    public var lessonText: String {
        [lesson.story.trimmingCharacters(in: .whitespacesAndNewlines), revealText].filter { !$0.isEmpty }.joined(separator: "\n\n")
    }
}
