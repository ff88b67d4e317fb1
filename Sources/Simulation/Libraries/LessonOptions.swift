/// A library's own settings in a lesson, under one key of the client block (`client.trustKit`, `client.android`):
/// what its models need beyond the lesson's pins. Every model of the lesson may read them (a `compare` row of
/// another library too), so a comparison's rows share them.
public protocol LessonOptions: Sendable, Decodable {
    /// The key under `client:`.
    static var key: String { get }
    /// The settings when the lesson leaves the key out.
    init()
}
