import PKI

/// The attacker: a proxy on 127.0.0.1 that the client is routed to (transparent, SNI tells the host)
/// or configured to use (HTTP CONNECT); it tells the two apart by the first byte.
public final class InterceptingProxy: Sendable {
    private let interception: Interception
    private let listener: Listener

    /// - Parameter routes: where each host really lives (a loopback port): the proxy's upstream.
    /// - Parameter onFlowEnd: called on the connection's thread when a connection is done (a live lab log).
    public init(
        attack: Attack, routes: [String: UInt16], log: EventLog, factory: CertificateFactory,
        keyLog: KeyLog? = nil, port: UInt16 = 0, onFlowEnd: (@Sendable (InterceptedFlow) -> Void)? = nil
    ) throws {
        let interception = try Interception(attack: attack, routes: routes, log: log, factory: factory, keyLog: keyLog, onFlowEnd: onFlowEnd)
        self.interception = interception
        // The handler holds the interception, never the proxy: a proxy dropped while a connection
        // arrives stops its listener (joining that connection's thread) while the state stays alive for it.
        listener = try Listener(port: port) { [interception] socket in interception.intercept(socket) }
    }

    public var port: UInt16 { listener.port }

    /// Every connection handled so far.
    public var flows: [InterceptedFlow] { interception.flows }

    public func stop() { listener.stop() }
}
