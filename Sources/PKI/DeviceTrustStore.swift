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
    /// The Certificate Transparency logs the device knows; nil when it holds no log list, and then, as trustd
    /// without a current list, it requires no CT.
    public var transparencyLogs: CTLogList?

    public init(
        system: [Certificate] = [], userInstalled: [Certificate] = [], installedWithoutFullTrust: [Certificate] = [], transparencyLogs: CTLogList? = nil
    ) {
        self.system = system
        self.userInstalled = userInstalled
        self.installedWithoutFullTrust = installedWithoutFullTrust
        self.transparencyLogs = transparencyLogs
    }

    /// What may end a path while the app has set no anchors of its own.
    public var anchors: [Certificate] { system + userInstalled }
}

/// Whose trust rules a `ServerTrust` applies on top of path building: today's iOS unless a lesson asks for an
/// older release; Android and OpenSSL for the peer models of those platforms. Docs/policy.md §10 gives each
/// iOS release's rules with the Apple source they come from.
public enum Platform: String, Hashable, Sendable, CaseIterable {
    /// iOS 16 and later (Security-60420 on): the rules for TLS server certificates, with the validity
    /// maximums of `set_ssl_validity_periods` (none for a leaf issued before 1 March 2018 at a root built into iOS).
    case iOS16 = "ios16"
    /// iOS 13–15: the rules of Apple's "Requirements for trusted certificates in iOS 13", with the validity
    /// maximums of `SecPolicyCheckSystemTrustValidityPeriodMaximums` (Security-59306 to 60158.100).
    case iOS13 = "ios13"
    /// iOS 12 (Security-58286): none of those rules, and the host name may be read from the common name.
    case iOS12 = "ios12"
    /// Android (Conscrypt's TrustManagerImpl): none of Apple's extra rules.
    case android
    /// OpenSSL's own verification, as curl, `openssl s_client` and Python use it: none of Apple's extra rules, and
    /// `X509_check_host` reads the common name when the SAN has no DNS name.
    case openSSL = "openssl"

    /// The platforms an iOS lesson may choose (`client.platform`, `evaluate --platform`), today's first.
    public static let iOS: [Platform] = [.iOS16, .iOS13, .iOS12]

    /// "iOS 16+", "iOS 13–15", "iOS 12", "Android", "OpenSSL": how a run's settings line names it.
    public var name: String {
        switch self {
        case .iOS16: "iOS 16+"
        case .iOS13: "iOS 13–15"
        case .iOS12: "iOS 12"
        case .android: "Android"
        case .openSSL: "OpenSSL"
        }
    }

    /// True where trustd requires Certificate Transparency of a leaf at a root built into iOS: iOS 12.1.1 and later.
    /// `ios12` stands for the iOS 12 releases before 12.1.1, which require none.
    public var requiresCertificateTransparency: Bool { self == .iOS13 || self == .iOS16 }

    /// True where Apple's rules for TLS server certificates (key sizes, SHA-1, validity maximums, serverAuth)
    /// apply to the SSL policy: iOS 13 and later.
    var hasTLSCertificateRules: Bool { self == .iOS13 || self == .iOS16 }

    /// True for the iOS releases: where Apple's trust evaluation answers otherwise than OpenSSL's, theirs is Apple's answer.
    /// The peer platforms keep OpenSSL's.
    var isApple: Bool { Platform.iOS.contains(self) }

    /// True where `SecCertificateIsWeakKey` counts an EdDSA key as weak under every policy: before iOS 17, whose
    /// Security-61040 lists EdDSA beside RSA and EC. `ios16` follows iOS 17 and later here.
    var countsEdDSAKeysWeak: Bool { self == .iOS13 || self == .iOS12 }

    /// True where every policy checks an anchor's basicConstraints (`SecPVCParentCertificateChecks` from Security-59306.140.5)
    /// and refuses an extension it cannot parse (`kSecPolicyCheckUnparseableExtension` from Security-60157): iOS 13 and later.
    var checksCertificateStructure: Bool { self == .iOS13 || self == .iOS16 }

    /// True where the host check reads the subject's common name when the SAN has no DNS name: iOS 12 and
    /// earlier (`SecCertificateCopyDNSNames`, Security-58286), not iOS 13 on (`SecCertificateCopyDNSNamesFromSAN`);
    /// OpenSSL's `X509_check_host` without `X509_CHECK_FLAG_NEVER_CHECK_SUBJECT` (as `openssl s_client
    /// -verify_hostname` and Python's `hostname_checks_common_name`, true by default, call it); not Android.
    public var readsCommonName: Bool { commonNameReader != nil }

    /// Who reads the common name in the sentences that say so: "iOS 12", "OpenSSL's X509_check_host"; nil where
    /// no host check reads it.
    var commonNameReader: String? {
        switch self {
        case .iOS12: "iOS 12"
        case .openSSL: "OpenSSL's X509_check_host"
        case .iOS16, .iOS13, .android: nil
        }
    }
}
