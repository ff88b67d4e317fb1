/// A library of iOS apps whose evaluations run in the app's process, so every SSL policy with a host name they use
/// carries the Info.plist's `NSPinnedDomains` (`InfoPlistPins`).
public protocol InfoPlistPinnedClient: ClientModel {
    /// The app's Info.plist `NSPinnedDomains`, with the keys of the certificates they name.
    var infoPlistPins: InfoPlistPins { get }
}

extension InfoPlistPinnedClient {
    /// The lesson's pins in the library's terms, and the Info.plist's `NSPinnedDomains` when it has any.
    public func settingsLines(_ client: ClientSettingsContext) -> [String] { infoPlistPins.settingsLines(peerSettingsLines(client)) }
}
