/// How the device trusts an authority.
public enum DeviceTrust: String, Sendable, CaseIterable {
    /// A root built into iOS: a public CA.
    case system
    /// Installed with a configuration profile and fully trusted in Certificate Trust Settings (what an attacker talks a user into).
    case userInstalled
    /// Installed with a profile, but full trust never switched on: since iOS 10.3 it anchors no TLS chain.
    case userInstalledWithoutFullTrust

    static let choices = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })

    /// True when it may end a path: a system root or a fully trusted installed one.
    public var isAnchor: Bool { self != .userInstalledWithoutFullTrust }

    /// "installed and fully trusted": how change lines and traces name it.
    public var phrase: String {
        switch self {
        case .system: "a root built into iOS"
        case .userInstalled: "installed and fully trusted"
        case .userInstalledWithoutFullTrust: "installed without full trust"
        }
    }
}
