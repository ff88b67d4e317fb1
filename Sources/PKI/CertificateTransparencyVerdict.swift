import Foundation

/// Apple's Certificate Transparency requirement judged for one path: which embedded SCTs OpenSSL found valid, how
/// many Apple's policy requires for the leaf's lifetime, and how many count.
///
/// The rule is trustd's (`SecPolicyCheckSystemTrustedCTRequired` in `trust/trustd/SecPolicyServer.c`, and
/// `SecPolicyCheckCT` with `verify_embedded_sct_policy_v1`/`_v2` in `trust/trustd/CertificateTransparency.m`,
/// Security-61901): it applies to the SSL server policy from iOS 12.1.1 on, when the leaf's notBefore is on or after
/// 16 October 2018 00:00 UTC and the path ends at a root built into iOS; roots the user installed and app anchors
/// are exempt. The per-operator cap is Apple's published policy ("Apple's Certificate Transparency policy").
public struct CertificateTransparencyVerdict: Sendable {
    public let validations: [CTLogList.Validation]
    /// SCTs from distinct known logs the leaf's lifetime calls for.
    public let required: Int
    /// The most SCTs one operator's logs may count for; nil where the policy sets no cap.
    public let maximumPerOperator: Int?
    /// Valid SCTs from distinct known logs, each operator's counted up to the cap.
    public let counted: Int
    /// "valid 395 days, issued from 21 April 2021": the lifetime and the table it was read in.
    public let lifetime: String

    public var isQualified: Bool { counted >= required }

    /// "SCTs from 3 distinct logs the device knows, at most 2 per operator, for a leaf valid 395 days, issued from 21 April 2021".
    public var requirement: String {
        "SCTs from \(required) distinct logs the device knows\(maximumPerOperator.map { ", at most \($0) per operator" } ?? ""), for a leaf \(lifetime)"
    }

    /// What OpenSSL found, grouped by judgement: "it carries no SCT", "OpenSSL finds valid SCTs from 'north-1' (North
    /// Logs), 'south-1' (South Logs), 2 counting".
    public var findings: String { CTLogList.Validation.findings(validations, counted: "\(counted) counting") }

    /// Trustd's instants (CFAbsoluteTime constants in the source), as Unix times.
    public static let cutoff = Date(timeIntervalSince1970: 1_539_648_000)
    static let april2021 = Date(timeIntervalSince1970: 1_618_963_200)

    /// The verdict for `path` under `trust`, or nil when Apple requires no CT of it: another platform or policy,
    /// no log list on the device, a leaf issued before 16 October 2018, a path not ending at a root built into iOS.
    static func judge(_ trust: ServerTrust, path: [Certificate]) -> CertificateTransparencyVerdict? {
        guard trust.platform.requiresCertificateTransparency, case .ssl = trust.policy, let logs = trust.deviceTrustStore.transparencyLogs,
            path.count >= 2, let root = path.last, trust.source(ofAnchor: root) == .system, path[0].notBefore >= cutoff
        else { return nil }
        let leaf = path[0]
        let validations = logs.validate(leaf, issuer: path[1], at: trust.verifyDate)
        let (required, cap, lifetime) = requirement(leaf)
        var perOperator: [String: Set<[UInt8]>] = [:]
        for validation in validations where validation.status == .valid {
            guard let log = validation.log else { continue }
            perOperator[log.operatorName, default: []].insert(log.logID)
        }
        let counted = perOperator.values.reduce(0) { $0 + min($1.count, cap ?? .max) }
        return CertificateTransparencyVerdict(validations: validations, required: required, maximumPerOperator: cap, counted: counted, lifetime: lifetime)
    }

    /// Before 21 April 2021, by whole calendar months (`verify_embedded_sct_policy_v1`): under 15, 2; to 27, 3; to 39, 4;
    /// else 5. From then on, by days (`verify_embedded_sct_policy_v2`): up to 180, 2, at most 1 per operator; up to
    /// 825, 3, at most 2 per operator (the published table stops at 398, the longest a leaf may now be valid); else 4.
    static func requirement(_ leaf: Certificate) -> (required: Int, maximumPerOperator: Int?, lifetime: String) {
        let seconds = leaf.notAfter.timeIntervalSince(leaf.notBefore)
        let days = Int((seconds / 86_400).rounded(.up))
        guard leaf.notBefore >= april2021 else {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
            let months = calendar.dateComponents([.month], from: leaf.notBefore, to: leaf.notAfter).month ?? 0
            let required = months < 15 ? 2 : months <= 27 ? 3 : months <= 39 ? 4 : 5
            return (required, nil, "valid \(months) whole months, issued before 21 April 2021")
        }
        let window = "valid \(days) days, issued from 21 April 2021"
        if seconds <= 180 * 86_400 { return (2, 1, window) }
        if seconds <= 825 * 86_400 { return (3, 2, window) }
        return (4, nil, window)
    }
}

extension CTLogList.Validation {
    /// What OpenSSL found in a leaf, grouped by judgement, then `counted`: "it carries no SCT", "OpenSSL finds valid
    /// SCTs from 'north-1' (North Logs), 'south-1' (South Logs), 2 counting". Apple's and Conscrypt's steps both say it.
    public static func findings(_ validations: [Self], counted: String) -> String {
        guard !validations.isEmpty else { return "it carries no SCT" }
        let groups = Dictionary(grouping: validations, by: \.judgement).sorted { $0.key < $1.key }
        return "OpenSSL finds " + groups.map { "\($0.key) \($0.value.map(\.logName).joined(separator: ", "))" }.joined(separator: "; ")
            + ", \(counted)"
    }

    /// "'north-1' (North Logs)", or the words for a log the device does not know.
    var logName: String { log.map { "'\($0.name)' (\($0.operatorName))" } ?? "a log the device does not know" }

    /// How findings group SCTs: "valid SCTs from", "SCTs that do not verify … from", …
    var judgement: String {
        switch status {
        case .valid: "valid SCTs from"
        case .invalid: "SCTs that do not verify (a bad signature or a future time) from"
        case .unknownLog: "SCTs that do not count, from"
        case .unverified, .unknownVersion: "SCTs it cannot verify from"
        }
    }
}
