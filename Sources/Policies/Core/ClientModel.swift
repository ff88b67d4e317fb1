import PKI

/// One mobile client's trust decision on a TLS connection, whichever library makes it: the whole iOS
/// client (`IOSClient`: ATS, the challenge handler, AFSecurityPolicy) or a peer library (Alamofire,
/// TrustKit, OkHttp, Android's Network Security Config, curl). `compare` and `audit` run one per model,
/// on the same real connection, and read every model's trace the same way.
public protocol ClientModel: Sendable {
    /// The decision on the chain a handshake presented, every branch a step with a stable check name.
    /// A rejection is a value, as for `SecurityPolicy`.
    func evaluate(_ connection: PresentedConnection) -> PolicyEvaluation

    /// Before any connection, for a URL of `scheme`: an evaluation when the client has a rule for it (ATS, or
    /// Android's cleartextTrafficPermitted for `http://`), nil when it has none and the load simply goes out.
    func evaluateLoad(scheme: String, host: String) -> PolicyEvaluation?

    // How a run describes the client (`ClientModel+Settings.swift`).

    /// The lines a run shows above the trace: the client and its settings, in the model's own terms, with
    /// the names the lesson gave (`client`). A peer library takes the default: its name and the lesson's pins.
    func settingsLines(_ client: ClientSettingsContext) -> [String]
}

extension ClientModel {
    /// Most libraries have no rule of their own about the URL's scheme.
    public func evaluateLoad(scheme: String, host: String) -> PolicyEvaluation? { nil }
}

/// What a client has in hand when the server's certificate arrives.
public struct PresentedConnection: Sendable {
    /// The chain as presented (leaf first), against the device's trust store, with an SSL policy for `host`
    /// and the platform rules of the device the lesson describes. A model of another platform (Android, curl)
    /// copies it and sets its own `platform`.
    public var serverTrust: ServerTrust
    /// What the handshake had settled.
    public var negotiated: NegotiatedTLS
    /// The URL's host.
    public var host: String
    /// What an AFNetworking app passes as `forDomain:` (nil when the lesson says `domain: null`); other models ignore it.
    public var domain: String?

    public init(serverTrust: ServerTrust, negotiated: NegotiatedTLS, host: String, domain: String?) {
        self.serverTrust = serverTrust
        self.negotiated = negotiated
        self.host = host
        self.domain = domain
    }
}

extension IOSClient: ClientModel {
    public func evaluate(_ connection: PresentedConnection) -> PolicyEvaluation {
        evaluate(serverTrust: connection.serverTrust, negotiated: connection.negotiated, host: connection.host, domain: connection.domain)
    }
}
