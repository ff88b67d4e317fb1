/// Which revocation sources Apple's `SecPolicyCreateRevocation` may use and how strict it is: the flags
/// Alamofire 5 passes as `RevocationTrustEvaluator.Options` and Alamofire 4 as `revocationFlags`, with
/// Security's raw values (`kSecRevocation…`).
public struct RevocationOptions: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt

    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// `kSecRevocationOCSPMethod`: ask the certificate's OCSP responder.
    public static let ocsp = RevocationOptions(rawValue: 1)
    /// `kSecRevocationCRLMethod`: fetch the certificate's CRL.
    public static let crl = RevocationOptions(rawValue: 2)
    /// `kSecRevocationPreferCRL`: try the CRL before OCSP.
    public static let preferCRL = RevocationOptions(rawValue: 4)
    /// `kSecRevocationRequirePositiveResponse`: unknown status fails instead of passing.
    public static let requirePositiveResponse = RevocationOptions(rawValue: 8)
    /// `kSecRevocationNetworkAccessDisabled`: use only what is cached, never the network.
    public static let networkAccessDisabled = RevocationOptions(rawValue: 16)
    /// `kSecRevocationUseAnyAvailableMethod` (OCSP and CRL): Alamofire 5's default.
    public static let any: RevocationOptions = [.ocsp, .crl]

    /// "[.any, .requirePositiveResponse]": as Swift code would write the set.
    public var description: String {
        var names: [String] = []
        var rest = self
        if rest.isSuperset(of: .any) {
            names.append(".any")
            rest.subtract(.any)
        }
        let named: [(RevocationOptions, String)] = [
            (.ocsp, ".ocsp"), (.crl, ".crl"), (.preferCRL, ".preferCRL"), (.requirePositiveResponse, ".requirePositiveResponse"),
            (.networkAccessDisabled, ".networkAccessDisabled"),
        ]
        names += named.filter { rest.contains($0.0) }.map(\.1)
        return "[" + names.joined(separator: ", ") + "]"
    }
}
