/// An iOS app whose requests go through an Alamofire 5 `Session`: `SessionDelegate` answers the server-trust
/// challenge with the session's `ServerTrustManager`, or with the system's default handling when there is none.
///
/// The model judges Alamofire's decision only. On a device, App Transport Security runs around it (it is
/// part of `IOSClient`); where ATS would refuse a chain Alamofire accepted, the trace says so in a note.
public struct Alamofire5Client: InfoPlistPinnedClient, Hashable {
    /// `Session(serverTrustManager:)` (default nil, as `Session.default` has none).
    public var serverTrustManager: ServerTrustManager?
    /// The app's Info.plist `NSPinnedDomains`: every SSL policy for a covered host that the library's evaluations use carries them.
    public var infoPlistPins: InfoPlistPins
    /// True when the attacker's `secTrustEvaluate` hook patches the `SecTrustEvaluateWithError` the evaluators call.
    public var secTrustEvaluateHooked = false

    public init(serverTrustManager: ServerTrustManager? = nil, infoPlistPins: InfoPlistPins = InfoPlistPins()) {
        self.serverTrustManager = serverTrustManager
        self.infoPlistPins = infoPlistPins
    }
}

extension Alamofire5Client: HookableClient {
    /// The `secTrustEvaluate` hook acts in each evaluator's evaluations, where the trace shows it.
    public func applying(_ hook: RuntimeHook) -> (client: any ClientModel, note: TraceStep?)? {
        setting(\.secTrustEvaluateHooked, when: hook, is: .secTrustEvaluate)
    }
}
