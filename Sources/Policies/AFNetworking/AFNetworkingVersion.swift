/// The AFNetworking releases whose `AFSecurityPolicy` a client can run, by the names scenario files,
/// `--library` and the matrix use. Each behaves as that release's `AFSecurityPolicy.m` does.
// swift-format-ignore: AlwaysUseLowerCamelCase
// The release numbers read best with their dots as underscores (v2_5_1).
public enum AFNetworkingVersion: String, Hashable, Sendable, CaseIterable, Comparable {
    /// 4.0.0 and 4.0.1, whose decision and challenge handling are the same.
    case v4 = "afnetworking-4"
    /// 3.1.0 through 3.2.1: a NO from the policy cancels the challenge (NSURLError -999).
    case v3_1 = "afnetworking-3.1"
    /// 3.0.0 through 3.0.4: a NO from the policy answers `RejectProtectionSpace`, which leaves the
    /// decision to URLSession's default handling.
    case v3_0 = "afnetworking-3.0"
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

    /// 3.0.0–3.2.1 run `AFServerTrustIsValid` before reading `allowInvalidCertificates` in the pinning modes
    /// (`!AFServerTrustIsValid(serverTrust) && !self.allowInvalidCertificates`); 4.0.0 swapped the two.
    public var evaluatesBeforeReadingAllowInvalid: Bool { self == .v3_1 || self == .v3_0 }

    /// 3.0.0–3.0.4 answer a NO from the policy with `RejectProtectionSpace` (PR #3191), which 3.1.0 reverted
    /// to `CancelAuthenticationChallenge` (PR #3417) because the request could still go through (issue #3287).
    public var rejectsProtectionSpace: Bool { self == .v3_0 }

    /// 2.0 has no `validatesDomainName` (and no `forDomain:`): it never checks a host name of its own.
    public var hasValidatesDomainName: Bool { self != .v2_0 }

    /// What `validatesDomainName` is when the app does not set it. A policy in mode none is taken to come
    /// from `+defaultPolicy`, one with a pinning mode from `+policyWithPinningMode:`: before 2.5.3 only the
    /// latter (2.1, 2.2) or the `SSLPinningMode` setter (2.5.0–2.5.2) turned it on.
    public func defaultValidatesDomainName(for mode: SSLPinningMode) -> Bool {
        switch self {
        case .v4, .v3_1, .v3_0, .v2_6, .v2_5_3: true
        case .v2_5_2, .v2_5_1, .v2_5_0, .v2_2, .v2_1: mode != .none
        case .v2_0: false
        }
    }
}

extension AFNetworkingVersion {
    /// "AFNetworking 2.5.1": the release as traces, matrix rows and docs name it. 2.2 and 2.1 keep their
    /// patch number because 2.2.1 reworked pinning; 2.0 covers 2.0.0–2.0.3, 3.0 covers 3.0.0–3.0.4 and 3.1
    /// covers 3.1.0–3.2.1, whose decisions are the same.
    public var displayName: String {
        switch self {
        case .v4: "AFNetworking 4"
        case .v3_1: "AFNetworking 3.1"
        case .v3_0: "AFNetworking 3.0"
        case .v2_6: "AFNetworking 2.6"
        case .v2_5_3: "AFNetworking 2.5.3"
        case .v2_5_2: "AFNetworking 2.5.2"
        case .v2_5_1: "AFNetworking 2.5.1"
        case .v2_5_0: "AFNetworking 2.5.0"
        case .v2_2: "AFNetworking 2.2.0"
        case .v2_1: "AFNetworking 2.1.0"
        case .v2_0: "AFNetworking 2.0"
        }
    }

    /// One line on what is special about this release's decision, for matrix rows and docs.
    public var summary: String {
        switch self {
        case .v4: "4.0.x: certificate mode reads the chain after anchoring it to the pins; the domain is checked by default; a NO fails with -1202"
        case .v3_1: "3.1.0–3.2.1: as 4.0.x, but the chain is evaluated before allowInvalidCertificates is read, and a NO fails with -999"
        case .v3_0:
            "3.0.0–3.0.4: as 3.1, but a NO answers RejectProtectionSpace and the system's default evaluation decides (a failed public-key pin can pass)"
        case .v2_6: "contradictory-settings rule added; certificate mode accepts any pinned certificate of the chain read before anchoring"
        case .v2_5_3: "validatesDomainName YES by default in every mode (fixes CVE-2015-3996); validatesCertificateChain still there"
        case .v2_5_2: "mode none evaluates the chain again, but the default policy checks no host name (CVE-2015-3996)"
        case .v2_5_1: "mode none returns YES without evaluating anything: the default policy accepts any chain"
        case .v2_5_0: "the default policy checks no host name: a valid certificate for any host is accepted (CVE-2015-3996)"
        case .v2_2: "CFNetwork's trust policy; allowInvalid skips the trust result in pinning modes; a common-name host check after pinning"
        case .v2_1: "CFNetwork's trust policy; pinning modes need a valid chain even with allowInvalid; the common-name check never runs"
        case .v2_0: "no domain; pinning modes never check the trust result, and ignore allowInvalidCertificates"
        }
    }

    /// That release's `+defaultPolicy`: mode none, invalid certificates refused, its default validatesDomainName.
    public var defaultPolicy: SecurityPolicy {
        SecurityPolicy(version: self, validatesDomainName: defaultValidatesDomainName(for: .none))
    }
}
