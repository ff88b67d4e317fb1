/// The outcome of `ServerTrust.evaluate()`: SecTrustEvaluate's verdict plus the path it built.
public struct TrustResult: Sendable {
    /// The built path, leaf first, ending at the anchor when one was reached.
    ///
    /// Like `SecTrustGetCertificateAtIndex`, this is *not* the list the server sent: certificates that do
    /// not chain are left out and an anchor the server did not send is included. When the chain is invalid
    /// the path stops at the first link whose signature does not verify, so a certificate that merely sits
    /// in the presented list can never be mistaken for part of the chain (CVE-2016-2402).
    public let path: [Certificate]
    /// Every failure found: OpenSSL's in the order it met them, then Apple's own rules; empty when the chain is valid.
    public let failures: [TrustFailure]
    /// The certificate that ended a valid path and where it is trusted from; nil when the chain is invalid.
    public let anchor: (certificate: Certificate, source: AnchorSource)?

    /// Apple's Certificate Transparency requirement for the path, judged when every other check passed and Apple
    /// requires CT of it; nil otherwise.
    public let transparency: CertificateTransparencyVerdict?

    public init(
        path: [Certificate], failures: [TrustFailure], anchor: (certificate: Certificate, source: AnchorSource)?,
        transparency: CertificateTransparencyVerdict? = nil
    ) {
        self.path = path
        self.failures = failures
        self.anchor = failures.isEmpty ? anchor : nil
        self.transparency = transparency
    }

    public var isValid: Bool { failures.isEmpty }

    /// "'bank-root', a root built into iOS": the anchor that ended a valid path, as traces name it.
    public var anchorDescription: String? {
        anchor.map { "'\($0.certificate.label)', \($0.source.phrase)" }
    }
    /// The first failure: what SecTrust would report as the reason.
    public var reason: TrustFailure? { failures.first }
    /// True when the app's `NSPinnedDomains` checks (`SSLPins`) are all that failed: the path is trusted apart from them.
    public var failsOnlyItsPins: Bool {
        !failures.isEmpty && failures.allSatisfy { if case .pinnedIdentityMismatch = $0.kind { true } else { false } }
    }
}

extension Array where Element == Certificate {
    /// "'bank.test' -> 'Bank Intermediate' -> 'Bank Root'": a path as traces print it, leaf first.
    public var pathDescription: String {
        isEmpty ? "(empty)" : map { "'\($0.label)'" }.joined(separator: " -> ")
    }
}
