import Policies

/// The lesson options a lesson gives (`client.trustKit`, `client.android`, …), each under its library's key,
/// with every option type's defaults for the keys it leaves out.
public struct PeerOptions: Sendable {
    private var values: [String: any LessonOptions] = [:]

    public init() {}

    /// The options under `Options.key`: as the lesson wrote them, or their defaults.
    public subscript<Options: LessonOptions>(_ type: Options.Type) -> Options {
        get { values[Options.key] as? Options ?? Options() }
        set { values[Options.key] = newValue }
    }

    /// Reads `type` from its key of the client block, when the lesson writes it.
    mutating func decode<Options: LessonOptions>(_ type: Options.Type, from container: KeyedDecodingContainer<AnyKey>) throws {
        let key = AnyKey(stringValue: Options.key)
        guard container.contains(key) else { return }
        values[Options.key] = try container.decode(Options.self, forKey: key)
    }
}
