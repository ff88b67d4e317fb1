/// An iOS app whose requests go through an Alamofire 4 `SessionManager`: `SessionDelegate` asks the
/// session's `ServerTrustPolicyManager` for the host's policy, and leaves the challenge to the system's
/// default handling when there is no manager or no policy for the host.
///
/// The model judges Alamofire's decision only. On a device, App Transport Security runs around it (it is
/// part of `IOSClient`); where ATS would refuse a chain Alamofire accepted, the trace says so in a note.
public struct Alamofire4Client: InfoPlistPinnedClient, Hashable {
    /// `SessionManager(serverTrustPolicyManager:)` (default nil).
    public var serverTrustPolicyManager: ServerTrustPolicyManager?
    /// The app's Info.plist `NSPinnedDomains`: every SSL policy for a covered host that the library's evaluations use carries them.
    public var infoPlistPins: InfoPlistPins
    /// True when the attacker's `urlSessionChallenge` hook answers in `SessionDelegate`'s place: Alamofire 4
    /// implements the session-level `urlSession(_:didReceive:completionHandler:)`, the selector the hook matches
    /// (Alamofire 5 answers in the task-level method only, which it does not).
    public var challengeHooked = false
    /// True when the attacker's `secTrustEvaluate` hook patches the `SecTrustEvaluate` that `trustIsValid` calls.
    public var secTrustEvaluateHooked = false

    public init(serverTrustPolicyManager: ServerTrustPolicyManager? = nil, infoPlistPins: InfoPlistPins = InfoPlistPins()) {
        self.serverTrustPolicyManager = serverTrustPolicyManager
        self.infoPlistPins = infoPlistPins
    }
}

/// Alamofire 4's `ServerTrustPolicyManager`: which policy judges which host, looked up exactly (`policies[host]`).
public struct ServerTrustPolicyManager: Hashable, Sendable {
    /// `policies`, by exact host name.
    public var policies: [String: ServerTrustPolicy]

    public init(policies: [String: ServerTrustPolicy]) {
        self.policies = policies
    }
}

extension Alamofire4Client: HookableClient {
    /// objection's URLSession hook replaces `SessionDelegate.urlSession(_:didReceive:completionHandler:)`'s answer;
    /// the `secTrustEvaluate` hook acts in `trustIsValid`, where the trace shows it.
    public func applying(_ hook: RuntimeHook) -> (client: any ClientModel, note: TraceStep?)? {
        setting(\.challengeHooked, when: hook, is: .urlSessionChallenge) ?? setting(\.secTrustEvaluateHooked, when: hook, is: .secTrustEvaluate)
    }
}
