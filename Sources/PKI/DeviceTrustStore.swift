/// Where a trust anchor came from. iOS applies different rules to a chain depending on it.
public enum AnchorSource: String, Hashable, Sendable, CaseIterable {
    /// A root built into iOS (a public CA).
    case system
    /// A root the user installed with a configuration profile and then fully trusted in Certificate Trust Settings.
    case userInstalled
    /// A certificate the app made an anchor with `SecTrustSetAnchorCertificates`: what AFNetworking does with pinned certificates.
    case app

    /// "a root built into iOS": how traces name the source of the anchor that ended a path.
    public var phrase: String {
        switch self {
        case .system: "a root built into iOS"
        case .userInstalled: "a root the user installed and fully trusted"
        case .app: "an app anchor (SecTrustSetAnchorCertificates, as pinning sets it)"
        }
    }
}

/// The device's own trust settings: what a `ServerTrust` trusts until the app sets its own anchors.
public struct DeviceTrustStore: Sendable {
    /// Roots built into iOS.
    public var system: [Certificate]
    /// Certificates the user installed and fully trusted.
    public var userInstalled: [Certificate]
    /// Installed with a profile, but full trust not switched on: since iOS 10.3 these anchor no TLS chain.
    public var installedWithoutFullTrust: [Certificate]

    public init(system: [Certificate] = [], userInstalled: [Certificate] = [], installedWithoutFullTrust: [Certificate] = []) {
        self.system = system
        self.userInstalled = userInstalled
        self.installedWithoutFullTrust = installedWithoutFullTrust
    }

    /// What may end a path while the app has set no anchors of its own.
    public var anchors: [Certificate] { system + userInstalled }
}

/// Whose trust rules a `ServerTrust` applies on top of path building: iOS 13 and later unless a historical
/// lesson asks for iOS 12; Android and OpenSSL for the peer models of those platforms.
public enum Platform: String, Hashable, Sendable, CaseIterable {
    /// iOS 13 and later: the server-certificate rules of Apple's "Requirements for trusted certificates in iOS 13".
    case iOS13 = "ios13"
    /// iOS 12: without those rules.
    case iOS12 = "ios12"
    /// Android (Conscrypt's TrustManagerImpl): none of Apple's extra rules.
    case android
    /// OpenSSL's own verification, as curl uses it: none of Apple's extra rules.
    case openSSL = "openssl"

    /// The platforms an iOS lesson may choose (`client.platform`, `evaluate --platform`).
    public static let iOS: [Platform] = [.iOS13, .iOS12]

    /// "iOS 13+", "iOS 12", "Android", "OpenSSL": how a run's settings line names it.
    public var name: String {
        switch self {
        case .iOS13: "iOS 13+"
        case .iOS12: "iOS 12"
        case .android: "Android"
        case .openSSL: "OpenSSL"
        }
    }
}
