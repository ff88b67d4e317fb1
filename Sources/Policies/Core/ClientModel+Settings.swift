import PKI

/// What a run knows of a client that its model does not keep: the name sentences give it, the lesson's pins
/// by their ids, what the app hands its policy as the domain, and the device it runs on. Each model words its
/// settings with it (`ClientModel.settingsLines(_:)`).
public struct ClientSettingsContext: Sendable {
    /// "Alamofire 5", "OkHttp 3.1.1": the client as sentences name it.
    public var displayName: String
    /// The lesson's pinning mode, which a peer library takes in its own terms.
    public var pinningMode: SSLPinningMode
    /// The ids of the pinned certificates, in the lesson's order.
    public var pinnedCertificates: [String]
    /// What an AFNetworking app passes as `forDomain:`; nil when the lesson says `domain: null`.
    public var domain: String?
    /// The device the app runs on.
    public var platform: Platform

    public init(displayName: String, pinningMode: SSLPinningMode, pinnedCertificates: [String], domain: String?, platform: Platform) {
        self.displayName = displayName
        self.pinningMode = pinningMode
        self.pinnedCertificates = pinnedCertificates
        self.domain = domain
        self.platform = platform
    }

    /// "nothing pinned", or "pinned 'leaf', 'intermediate'".
    public var pinned: String {
        pinnedCertificates.isEmpty ? "nothing pinned" : "pinned " + pinnedCertificates.map { "'\($0)'" }.joined(separator: ", ")
    }

    /// "pinning mode certificate, pinned 'leaf'": the lesson's pins, as every client is given them.
    public var pins: String { "pinning mode \(pinningMode), \(pinned)" }
}

extension ClientModel {
    /// A peer library is given only the lesson's pins, which it takes in its own terms: its name, and those pins.
    public func settingsLines(_ client: ClientSettingsContext) -> [String] { peerSettingsLines(client) }

    /// The default `settingsLines`: the library's name and the lesson's pins.
    public func peerSettingsLines(_ client: ClientSettingsContext) -> [String] {
        ["App: \(client.displayName)", "The lesson's pins, in \(client.displayName)'s terms: \(client.pins)"]
    }
}
