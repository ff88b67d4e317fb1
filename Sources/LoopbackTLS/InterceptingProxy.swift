import PKI

/// The attacker: a proxy (on 127.0.0.1 unless told otherwise) that the client is routed to (transparent,
/// SNI tells the host) or configured to use (HTTP CONNECT); it tells the two apart by the first byte.
///
/// It is never an open proxy: only the hosts in its routes are reached; a CONNECT to any other host is
/// answered `403`, a malformed request `400`, an oversized head `431`. A plain HTTP request for a path
/// (a browser opening `http://address:port/`) is answered by `site`, when there is one; a proxy without a
/// site relays plain HTTP for the hosts it routes instead, reading it all (see `Interception.answerHTTP`).
public final class InterceptingProxy: Sendable {
    private let interception: Interception
    private let listener: Listener

    /// - Parameter routes: where each host really lives: a port on `address`, the proxy's upstream.
    /// - Parameter defaultHost: where a transparent connection without SNI goes (nil: nowhere).
    /// - Parameter site: what answers plain HTTP requests for the proxy's own pages.
    /// - Parameter allowsWeakCryptography: both sides negotiate TLS 1.0 to 1.3 and take RSA-1024 and SHA-1
    ///   certificates (OpenSSL's security level 0), for lessons about servers App Transport Security refuses.
    /// - Parameter keepsFlows: false for a proxy that runs all day (a live lab): `flows` then keeps no connection,
    ///   each goes to `onFlowEnd` only.
    /// - Parameter onFlowEnd: called on the connection's thread when a connection is done (a live lab log).
    /// - Parameter limits: caps on the connections handled at once (nil: none); `onNotice` hears what they refuse,
    ///   and when accepting fails for want of descriptors or memory and recovers.
    public init(
        attack: Attack, routes: [String: UInt16], defaultHost: String? = nil, site: (any HTTPApplication)? = nil, log: EventLog,
        factory: CertificateFactory, keyLog: KeyLog? = nil, address: ListenAddress = .loopback, port: UInt16 = 0, allowsWeakCryptography: Bool = false,
        keepsFlows: Bool = true, onFlowEnd: (@Sendable (InterceptedFlow) -> Void)? = nil, limits: ConnectionLimits? = nil,
        onNotice: (@Sendable (ListenerNotice) -> Void)? = nil
    ) throws {
        let interception = try Interception(
            attack: attack, routes: routes, upstream: address, defaultHost: defaultHost, site: site, log: log, factory: factory,
            keyLog: keyLog, allowsWeakCryptography: allowsWeakCryptography, keepsFlows: keepsFlows, onFlowEnd: onFlowEnd)
        self.interception = interception
        // The handler holds the interception, never the proxy: a proxy dropped while a connection
        // arrives stops its listener (joining that connection's thread) while the state stays alive for it.
        listener = try Listener(address: address, port: port, limits: limits, onNotice: onNotice) { [interception] socket, number in
            interception.intercept(socket, number: number)
        }
    }

    public var port: UInt16 { listener.port }

    /// Every connection handled so far (none when it keeps no flows).
    public var flows: [InterceptedFlow] { interception.flows }

    public func stop() { listener.stop() }
}
