/// An app's configuration file (a network security config, an OkHttp pin file) that a library would refuse:
/// where in the file, and why. The reader of the file names the file, so the error reads as one line.
public struct ConfigurationError: Error, Equatable, Sendable {
    /// "line 3", "line 4, <pin>", or empty for the whole file.
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}
