/// Who answers the URLSession's server-trust challenge (`URLSession:didReceiveChallenge:completionHandler:`).
public enum ChallengeHandler: String, Hashable, Sendable, CaseIterable {
    /// AFNetworking's `AFURLSessionManager` with no app block: the security policy decides;
    /// YES → `UseCredential`, NO → `CancelAuthenticationChallenge` (NSURLError -999).
    case afnetworking
    /// The articles' block: `UseCredential` with `credentialForTrust:` for every challenge, evaluating nothing.
    case acceptAll
    /// No delegate method: `PerformDefaultHandling`, the system's own evaluation (NSURLError -1202 when it fails).
    case systemDefault

    /// Who answers, as the run's settings line says it.
    public var phrase: String {
        switch self {
        case .afnetworking: "AFURLSessionManager, which asks AFSecurityPolicy"
        case .acceptAll: "the app's accept-all block (AFSecurityPolicy is never asked)"
        case .systemDefault: "the system (no delegate method; AFSecurityPolicy is never asked)"
        }
    }
}
