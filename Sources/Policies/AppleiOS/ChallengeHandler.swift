/// Who answers the URLSession's server-trust challenge (`URLSession:didReceiveChallenge:completionHandler:`).
public enum ChallengeHandler: String, Hashable, Sendable, CaseIterable {
    /// AFNetworking's `AFURLSessionManager` with no app block: the security policy decides;
    /// YES → `UseCredential`, NO → `CancelAuthenticationChallenge` (NSURLError -999; 4.0.x attaches -1202).
    /// 3.0.0–3.0.4 answer NO with `RejectProtectionSpace`, and URLSession's default handling decides.
    case afnetworking
    /// The articles' block: `UseCredential` with `credentialForTrust:` for every challenge, evaluating nothing.
    case acceptAll
    /// No delegate method: `PerformDefaultHandling`, the system's own evaluation (NSURLError -1202 when it fails).
    case systemDefault

    /// Who answers and how, as the run's settings line says it.
    public var phrase: String {
        switch self {
        case .afnetworking: "AFURLSessionManager asks AFSecurityPolicy"
        case .acceptAll: "the app's block accepts every chain, never asking AFSecurityPolicy"
        case .systemDefault: "no delegate, the system evaluates, never asking AFSecurityPolicy"
        }
    }
}
