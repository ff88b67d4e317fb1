/// The `NSURLErrorDomain` error an app's URLSession task fails with, by Apple's code and constant name.
///
/// The app never sees a trace: this is what its completion handler gets, and what a learner would search for.
public struct NSURLError: Hashable, Sendable, CustomStringConvertible, Encodable {
    /// The code, e.g. -1200.
    public let code: Int
    /// Apple's constant, e.g. `NSURLErrorSecureConnectionFailed`.
    public let name: String

    /// -999: the challenge handler answered CancelAuthenticationChallenge.
    public static let cancelled = NSURLError(code: -999, name: "NSURLErrorCancelled")
    /// -1022: ATS refused an `http://` load before any connection was made.
    public static let appTransportSecurityRequiresSecureConnection = NSURLError(
        code: -1022, name: "NSURLErrorAppTransportSecurityRequiresSecureConnection")
    /// -1200: the TLS connection failed; ATS refusals surface as this.
    public static let secureConnectionFailed = NSURLError(code: -1200, name: "NSURLErrorSecureConnectionFailed")
    /// -1202: the system's default evaluation did not trust the server's certificate.
    public static let serverCertificateUntrusted = NSURLError(code: -1202, name: "NSURLErrorServerCertificateUntrusted")

    /// "NSURLError -1200 NSURLErrorSecureConnectionFailed".
    public var description: String { "NSURLError \(code) \(name)" }
}
