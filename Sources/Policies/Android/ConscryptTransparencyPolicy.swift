import Foundation
import PKI

/// Conscrypt's Certificate Transparency check, as Android's platform trust manager runs it when the app's network
/// security policy requires CT for the host (Android 16 on): `CertificateTransparency.checkCT` with `PolicyImpl`
/// (google/conscrypt, `common/src/main/java/org/conscrypt/ct/CertificateTransparency.java` and
/// `platform/src/main/java/org/conscrypt/ct/PolicyImpl.java` at 3869db7; Docs/peers.md §7).
///
/// The SCTs embedded in the leaf are judged by OpenSSL's CT code against the logs the device knows (`CTLogList`,
/// the same verification Apple's step uses); the policy then counts them: at least 2 distinct logs for a leaf valid
/// 180 days or less, else 3, from at least 2 distinct operators.
public struct ConscryptTransparencyPolicy: Sendable {
    /// `PolicyCompliance`: the value Conscrypt's exception names.
    public enum Compliance: String, Sendable {
        case comply = "COMPLY"
        case notEnoughSCTs = "NOT_ENOUGH_SCTS"
        case notEnoughDiverseSCTs = "NOT_ENOUGH_DIVERSE_SCTS"
    }

    /// What OpenSSL found in the leaf.
    public let validations: [CTLogList.Validation]
    /// Distinct known logs the leaf's lifetime calls for.
    public let required: Int
    /// The leaf's lifetime in whole days, as `TimeUnit.DAYS.convert` truncates it.
    public let lifetimeDays: Int
    /// The distinct known logs with a valid SCT, and their operators.
    public let logs: Set<String>, operators: Set<String>

    /// `doesResultConformToPolicy` for `leaf`, whose SCTs are checked for `issuer`'s key (none without an issuer: a
    /// chain of one certificate), under `logList` at `date`.
    public init(leaf: Certificate, issuer: Certificate?, logList: CTLogList, at date: Date) {
        validations = issuer.map { logList.validate(leaf, issuer: $0, at: date) } ?? []
        lifetimeDays = Int(leaf.notAfter.timeIntervalSince(leaf.notBefore) / 86_400)
        required = lifetimeDays <= 180 ? 2 : 3
        let valid = validations.filter { $0.status == .valid }.compactMap(\.log)
        logs = Set(valid.map(\.name))
        operators = Set(valid.map(\.operatorName))
    }

    public var compliance: Compliance {
        guard logs.count >= required else { return .notEnoughSCTs }
        return operators.count >= 2 ? .comply : .notEnoughDiverseSCTs
    }

    /// The step `check` records once the chain reached a trust anchor, with the rejection when the policy is not met;
    /// `why` says why CT is required for the host. Without a log list Conscrypt fails open.
    static func step(
        _ check: TraceStep.Check, path: [Certificate], trust: ServerTrust, why: String
    ) -> (step: TraceStep, rejection: RejectionReason?) {
        guard let logList = trust.deviceTrustStore.transparencyLogs, let leaf = path.first else {
            return (TraceStep(check, .note, "\(why), but the device holds no CT log list, so Conscrypt fails open and checks no SCT"), nil)
        }
        let policy = ConscryptTransparencyPolicy(leaf: leaf, issuer: path.dropFirst().first, logList: logList, at: trust.verifyDate)
        let counted =
            "\(policy.logs.count) distinct log\(policy.logs.count == 1 ? "" : "s") from \(policy.operators.count) operator"
            + (policy.operators.count == 1 ? "" : "s")
        let requirement =
            "\(why): Conscrypt requires SCTs embedded in '\(leaf.label)' from \(policy.required) distinct logs the device knows, "
            + "run by at least 2 operators, for a leaf valid \(policy.lifetimeDays) days; "
            + CTLogList.Validation.findings(policy.validations, counted: counted)
        let compliance = policy.compliance
        guard compliance != .comply else { return (TraceStep(check, .passed, "\(requirement): \(compliance.rawValue)"), nil) }
        return (
            TraceStep(
                check, .failed,
                "\(requirement): \(compliance.rawValue). checkServerTrusted throws CertificateException: Certificate chain does not conform "
                    + "to required transparency policy: \(compliance.rawValue), and the handshake fails with SSLHandshakeException"),
            .androidTransparencyPolicyNotMet
        )
    }
}
