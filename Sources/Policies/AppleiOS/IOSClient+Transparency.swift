import Foundation
import PKI

extension IOSClient {
    /// The whole client's verdict on the chain a handshake presented (`evaluateTrust`), followed by Apple's Certificate
    /// Transparency requirement as a step of its own once the trace reached the challenge: what the system's SSL-policy
    /// evaluation of this chain found, and whether the verdict rests on it.
    public func evaluate(serverTrust: ServerTrust, negotiated: NegotiatedTLS, host: String, domain: String?) -> PolicyEvaluation {
        let evaluation = evaluateTrust(serverTrust: serverTrust, negotiated: negotiated, host: host, domain: domain)
        guard evaluation.steps.contains(where: { $0.check == .challengeHandler }),
            let step = Self.transparencyStep(Self.systemEvaluation(serverTrust, host: host), evaluation: evaluation, platform: serverTrust.platform)
        else { return evaluation }
        return PolicyEvaluation(steps: evaluation.steps + [step], path: evaluation.path, rejection: evaluation.rejection, urlError: evaluation.urlError)
    }

    /// The step: failed when the verdict is a refusal for want of CT, a note otherwise; nil where Apple requires no CT
    /// and no user-installed root explains why (another failure, an older release, a leaf issued before the cutoff).
    static func transparencyStep(_ system: TrustResult, evaluation: PolicyEvaluation, platform: Platform) -> TraceStep? {
        guard platform.requiresCertificateTransparency, let leaf = system.path.first, let root = system.path.last else { return nil }
        guard let verdict = system.transparency else {
            guard system.isValid, system.anchor?.source == .userInstalled, leaf.notBefore >= CertificateTransparencyVerdict.cutoff else { return nil }
            return TraceStep(
                .certificateTransparency, .note,
                "the path ends at '\(root.label)', a root the user installed and fully trusted: Apple requires Certificate Transparency only "
                    + "of a chain that ends at a root built into iOS, so none is required here")
        }
        let cap = verdict.maximumPerOperator.map { ", at most \($0) per operator" } ?? ""
        let requirement =
            "the chain of '\(leaf.label)' (issued \(leaf.notBefore.utcDay)) ends at '\(root.label)', a root built into iOS: iOS 12.1.1 and later require SCTs "
            + "from \(verdict.required) distinct logs the device knows\(cap), for a leaf \(verdict.lifetime)"
        let found =
            verdict.validations.isEmpty
            ? "it carries no SCT"
            : "OpenSSL finds "
                + Dictionary(grouping: verdict.validations, by: \.judgement).sorted { $0.key < $1.key }
                .map { "\($0.key) \($0.value.map(\.logName).joined(separator: ", "))" }.joined(separator: "; ")
        guard !verdict.isQualified else { return TraceStep(.certificateTransparency, .note, "\(requirement); \(found): CT-qualified") }
        let refusal = "fails (kSecPolicyCheckSystemTrustedCTRequired)"
        let counted = verdict.validations.isEmpty ? "" : ", \(verdict.counted) counting"
        guard evaluation.rejection?.trustFailure?.kind == system.reason?.kind, let error = evaluation.urlError else {
            return TraceStep(
                .certificateTransparency, .note,
                "\(requirement); \(found)\(counted), so any SSL-policy evaluation of this chain \(refusal); the verdict did not rest on one")
        }
        return TraceStep(
            .certificateTransparency, .failed, "\(requirement); \(found)\(counted), so the system's evaluation \(refusal) and the task with \(error)")
    }
}

extension CTLogList.Validation {
    /// "'north-1' (North Logs)", or the words for a log the device does not know.
    fileprivate var logName: String { log.map { "'\($0.name)' (\($0.operatorName))" } ?? "a log the device does not know" }

    /// How the trace groups SCTs: "valid SCTs from", "SCTs that do not verify from", …
    fileprivate var judgement: String {
        switch status {
        case .valid: "valid SCTs from"
        case .invalid: "SCTs that do not verify (a bad signature or a future time) from"
        case .unknownLog: "SCTs that do not count, from"
        case .unverified, .unknownVersion: "SCTs it cannot verify from"
        }
    }
}
