/// An iOS app whose requests go through an Alamofire 5 `Session`: `SessionDelegate` answers the server-trust
/// challenge with the session's `ServerTrustManager`, or with the system's default handling when there is none.
///
/// The model judges Alamofire's decision only. On a device, App Transport Security runs around it (it is
/// part of `IOSClient`); where ATS would refuse a chain Alamofire accepted, the trace says so in a note.
public struct Alamofire5Client: ClientModel, Hashable {
    /// `Session(serverTrustManager:)` (default nil, as `Session.default` has none).
    public var serverTrustManager: ServerTrustManager?

    public init(serverTrustManager: ServerTrustManager? = nil) {
        self.serverTrustManager = serverTrustManager
    }
}
