/// A client model by the name `client.library`, a scenario's `clients:` and `mitmsim compare` give it, with the
/// name sentences give it. Each library declares its names beside its description (`ClientLibrary+OkHttp.swift`:
/// `.okhttp`, `.okhttp3_1_1`); which names a lesson may use is the registry's (`ClientLibraries`).
public struct ClientModelName: Hashable, Sendable, CustomStringConvertible {
    /// "afnetworking-2.5.1", "alamofire-5", "okhttp-3.1.1", "android-nsc": the name files and commands write.
    public let rawValue: String
    /// "AFNetworking 2.5.1", "OkHttp 3.1.1", "Android Network Security Config": the model as sentences name it.
    public let displayName: String

    public init(_ rawValue: String, displayName: String) {
        self.rawValue = rawValue
        self.displayName = displayName
    }

    public var description: String { rawValue }

    // The name is the identity; the display name follows from it.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
