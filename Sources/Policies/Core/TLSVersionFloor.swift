import PKI

/// The oldest TLS version a peer client finishes a handshake with, and the rule that sets it, in words.
/// Every floor the peer models have is TLS 1.2 or lower, so a handshake on TLS 1.2 or 1.3 passes them all,
/// and the trace shows the check only for an older one.
struct TLSVersionFloor {
    /// The oldest version allowed.
    let minimum: TLSVersion
    /// Why, naming its source: "OkHttp 4.12.0's default ConnectionSpec.MODERN_TLS enables only TLS 1.3 and TLS 1.2".
    let rule: String

    /// This floor behind a library's own `offer` of versions that reaches lower: "<offer>, and <rule>".
    func after(_ offer: String) -> TLSVersionFloor { TLSVersionFloor(minimum: minimum, rule: "\(offer), and \(rule)") }

    /// Adds `check` to `trace` when `negotiated` is older than TLS 1.2: passed at or above the floor, failed
    /// below it, ending with `failure` (what the app or the command sees). Returns false when the handshake fails.
    func allows(_ negotiated: TLSVersion, check: TraceStep.Check, failure: String, trace: inout Trace) -> Bool {
        guard negotiated < .tls12 else { return true }
        guard negotiated >= minimum else {
            trace.add(check, .failed, "\(negotiated.rawValue) was negotiated; \(rule), so the handshake fails: \(failure)")
            return false
        }
        trace.add(check, .passed, "\(negotiated.rawValue) was negotiated; \(rule), so it is allowed")
        return true
    }
}
