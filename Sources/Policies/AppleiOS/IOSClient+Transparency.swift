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
        let requirement =
            "the chain of '\(leaf.label)' (issued \(leaf.notBefore.utcDay)) ends at '\(root.label)', a root built into iOS: iOS 12.1.1 and "
            + "later require \(verdict.requirement); \(verdict.findings)"
        guard !verdict.isQualified else { return TraceStep(.certificateTransparency, .note, "\(requirement): CT-qualified") }
        let refusal = "fails (kSecPolicyCheckSystemTrustedCTRequired)"
        guard evaluation.rejection?.trustFailure?.kind == system.reason?.kind, let error = evaluation.urlError else {
            return TraceStep(
                .certificateTransparency, .note, "\(requirement), so any SSL-policy evaluation of this chain \(refusal); the verdict did not rest on one")
        }
        return TraceStep(.certificateTransparency, .failed, "\(requirement), so the system's evaluation \(refusal) and the task with \(error)")
    }
}
