/// Alamofire 5's `ServerTrustManager`: which evaluator judges which host.
///
/// Hosts are looked up exactly as the challenge names them (`evaluators[host]`): an entry for "bank.test"
/// does not cover "www.bank.test", and there are no wildcards.
public struct ServerTrustManager: Hashable, Sendable {
    /// `allHostsMustBeEvaluated` (default true): a host without an evaluator fails with `.noRequiredEvaluator`;
    /// when false, the system's default handling judges it.
    public var allHostsMustBeEvaluated: Bool
    /// `evaluators`, by exact host name.
    public var evaluators: [String: ServerTrustEvaluator]

    public init(allHostsMustBeEvaluated: Bool = true, evaluators: [String: ServerTrustEvaluator]) {
        self.allHostsMustBeEvaluated = allHostsMustBeEvaluated
        self.evaluators = evaluators
    }
}
