/// Who answers the URLSession's challenges (`URLSession:didReceiveChallenge:completionHandler:`): server trust,
/// and in two-way TLS the client certificate, which only `identityBlock` answers with an identity.
public enum ChallengeHandler: String, Hashable, Sendable, CaseIterable {
    /// AFNetworking's `AFURLSessionManager` with no app block: the security policy decides;
    /// YES → `UseCredential`, NO → `CancelAuthenticationChallenge` (NSURLError -999). Any other challenge,
    /// a client certificate's included, gets `PerformDefaultHandling` with no credential: no certificate is sent.
    case afnetworking
    /// The articles' block: `UseCredential` with `credentialForTrust:` for every challenge, evaluating nothing.
    case acceptAll
    /// No delegate method: `PerformDefaultHandling`, the system's own evaluation (NSURLError -1202 when it fails).
    case systemDefault
    /// The two-way TLS articles' block (`setSessionDidReceiveAuthenticationChallengeBlock:`): server trust goes to
    /// the security policy (YES → `UseCredential`, NO → `CancelAuthenticationChallenge`, NSURLError -999), the
    /// client-certificate challenge gets `credentialWithIdentity:` from `SecPKCS12Import` of the app's `.p12`.
    case identityBlock

    /// Who answers and how, as the run's settings line says it.
    public var phrase: String {
        switch self {
        case .afnetworking: "AFURLSessionManager asks AFSecurityPolicy"
        case .acceptAll: "the app's block accepts every chain, never asking AFSecurityPolicy"
        case .systemDefault: "no delegate, the system evaluates, never asking AFSecurityPolicy"
        case .identityBlock: "the app's block asks AFSecurityPolicy and answers a client-certificate challenge from its .p12"
        }
    }
}
