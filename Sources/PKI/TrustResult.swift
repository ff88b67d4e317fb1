/// The outcome of `ServerTrust.evaluate()`: SecTrustEvaluate's verdict plus the path it built.
public struct TrustResult: Sendable {
    /// The built path, leaf first, ending at the anchor when one was reached.
    ///
    /// Like `SecTrustGetCertificateAtIndex`, this is *not* the list the server sent: certificates that do
    /// not chain are left out and an anchor the server did not send is included. When the chain is invalid
    /// the path stops at the first link whose signature does not verify, so a certificate that merely sits
    /// in the presented list can never be mistaken for part of the chain (CVE-2016-2402).
    public let path: [Certificate]
    /// Every failure found, in the order OpenSSL met them; empty when the chain is valid.
    public let failures: [TrustFailure]

    public var isValid: Bool { failures.isEmpty }
    /// The first failure: what SecTrust would report as the reason.
    public var reason: TrustFailure? { failures.first }
}

extension Array where Element == Certificate {
    /// "'bank.test' -> 'Bank Intermediate' -> 'Bank Root'": a path as traces print it, leaf first.
    public var pathDescription: String {
        isEmpty ? "(empty)" : map { "'\($0.label)'" }.joined(separator: " -> ")
    }
}
