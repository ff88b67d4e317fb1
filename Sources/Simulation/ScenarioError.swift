/// A scenario file that cannot be used: names the file and the key path, and says what is wrong.
public struct ScenarioError: Error, Equatable, Sendable, CustomStringConvertible {
    public let file: String
    /// Dotted key path such as `client.policy.pinningMode`, or empty for the whole file.
    public let path: String
    public let reason: String

    public init(file: String, path: String, reason: String) {
        self.file = file
        self.path = path
        self.reason = reason
    }

    /// One line: reasons quote values from the file, and a value may hold line breaks.
    public var description: String {
        String((path.isEmpty ? "\(file): \(reason)" : "\(file): \(path): \(reason)").map { $0.isNewline ? " " : $0 })
    }
}
