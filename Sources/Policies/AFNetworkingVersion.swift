/// The AFNetworking releases whose `AFSecurityPolicy` a client can run, by the names scenario files,
/// `--library` and the matrix use. Each behaves as that release's `AFSecurityPolicy.m` does.
public enum AFNetworkingVersion: String, Hashable, Sendable, CaseIterable, Comparable {
    /// 4.0.x, and 3.x, whose decision is the same.
    case v4 = "afnetworking-4"
    case v2_6 = "afnetworking-2.6"
    case v2_5_3 = "afnetworking-2.5.3"
    case v2_5_2 = "afnetworking-2.5.2"
    case v2_5_1 = "afnetworking-2.5.1"
    case v2_5_0 = "afnetworking-2.5.0"
    case v2_2 = "afnetworking-2.2"
    case v2_1 = "afnetworking-2.1"
    case v2_0 = "afnetworking-2.0"

    /// Older releases first. Every case is in `allCases`, so both indices exist.
    public static func < (lhs: AFNetworkingVersion, rhs: AFNetworkingVersion) -> Bool {
        allCases.firstIndex(of: lhs)! > allCases.firstIndex(of: rhs)!
    }
}

extension AFNetworkingVersion {
    /// 2.1 through 2.5.4 have `validatesCertificateChain`; 2.6 removed it.
    public var hasValidatesCertificateChain: Bool { self >= .v2_1 && self <= .v2_5_3 }

    /// 2.0 has no `validatesDomainName` (and no `forDomain:`): it never checks a host name of its own.
    public var hasValidatesDomainName: Bool { self != .v2_0 }

    /// What `validatesDomainName` is when the app does not set it. A policy in mode none is taken to come
    /// from `+defaultPolicy`, one with a pinning mode from `+policyWithPinningMode:`: before 2.5.3 only the
    /// latter (2.1, 2.2) or the `SSLPinningMode` setter (2.5.0–2.5.2) turned it on.
    public func defaultValidatesDomainName(for mode: SSLPinningMode) -> Bool {
        switch self {
        case .v4, .v2_6, .v2_5_3: true
        case .v2_5_2, .v2_5_1, .v2_5_0, .v2_2, .v2_1: mode != .none
        case .v2_0: false
        }
    }
}
