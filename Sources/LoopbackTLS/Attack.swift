import PKI

/// What the intercepting proxy does to a connection it receives.
public enum Attack: Sendable {
    /// Relays bytes untouched: the attacker learns the server name and sizes, and reads nothing.
    case passthrough
    /// Fetches the real certificate, forges a leaf with its names signed by `authority`, and
    /// terminates TLS on both sides, reading everything.
    case forge(authority: Identity)
    /// As `forge`, but the forged leaf signs itself.
    case selfSigned
    /// Presents the real server's chain without its private key: the CertificateVerify signature fails.
    case replayRealChain
    /// Presents a leaf for the host from a CA the device trusts (a compromised or coerced CA), logged nowhere.
    case misissued(authority: Identity)
    /// As `misissued`, but the CA first logs the leaf in `logs` (its precertificate with `chain`, the certificates
    /// above the CA), so the leaf carries their SCTs, and the logs now publish it.
    case misissuedLogged(authority: Identity, chain: [Certificate], logs: [CTLog])
    /// Presents the real chain with the real leaf's private key, which the attacker stole.
    case stolenKey(PrivateKey)
    /// Presents a chain the attacker holds the key for (a certificate for another host, an expired one).
    case present(chain: [Certificate], key: PrivateKey, note: String)

    /// Terminating attacks decrypt; passthrough does not.
    public var terminatesTLS: Bool {
        if case .passthrough = self { return false }
        return true
    }

    /// What it presents depends on the real leaf alone: a forgery made for one connection fits the next to the same
    /// host as long as the server presents the same leaf.
    var forgesFromRealLeaf: Bool {
        switch self {
        case .forge, .misissued, .misissuedLogged, .selfSigned: true
        case .passthrough, .replayRealChain, .stolenKey, .present: false
        }
    }

    var plan: String {
        switch self {
        case .passthrough: "passing the connection through untouched"
        case .forge(let authority): "fetching the real certificate to forge one signed by '\(authority.certificate.label)'"
        case .selfSigned: "fetching the real certificate to forge a self-signed copy"
        case .replayRealChain: "fetching the real chain to present it without its private key"
        case .misissued(let authority): "presenting a certificate mis-issued by '\(authority.certificate.label)'"
        case .misissuedLogged(let authority, _, _): "presenting a logged certificate mis-issued by '\(authority.certificate.label)'"
        case .stolenKey: "presenting the real chain with the stolen private key"
        case .present(let chain, _, let note): "presenting '\(chain.first?.label ?? "")', \(note)"
        }
    }
}

/// What the attacker learned from one intercepted connection.
public struct InterceptedFlow: Sendable {
    /// The connection's number on its proxy: 1, 2, … in the order the connections arrived.
    public var number = 0
    /// The host the connection was routed to or refused for (CONNECT's host, else the SNI, else the
    /// proxy's default host; for relayed plain HTTP, the host its request names).
    public var host: String?
    /// What the client asked HTTP CONNECT for ("bank.test:443"); nil for transparent TLS and plain HTTP.
    public var connectTarget: String?
    /// The server name in the client's ClientHello (SNI); nil when it sent none.
    public var serverName: String?
    /// The application protocols the client's ClientHello offered (ALPN); nil when no ClientHello was read.
    public var offeredProtocols: [String]?
    /// The answer the proxy gave an HTTP request itself ("403 Forbidden: …", "200 OK"): a CONNECT it
    /// refused, a malformed or oversized request, or a request for its own pages.
    public var answer: String?
    /// Why the proxy closed a TLS connection without presenting anything (a server name it does not route).
    public var refusal: String?
    /// The alert the client sent when the handshake failed ("unknown_ca").
    public var clientAlert: String?
    /// The relay ended because neither side sent anything for the socket timeout.
    public var relayTimedOut = false
    /// The chain the proxy presented to the client (labels), empty for passthrough.
    public var presentedChain: [String] = []
    /// True once the client completed its handshake with the proxy (it accepted what it was shown).
    public var clientAccepted = false
    /// The first `keptPlaintext` bytes read in each direction (enough to show a login; a download is not kept).
    public private(set) var plaintextFromClient: [UInt8] = []
    public private(set) var plaintextFromOrigin: [UInt8] = []
    /// Every plaintext byte read, kept or not.
    public private(set) var plaintextBytes: (fromClient: Int, fromOrigin: Int) = (0, 0)
    /// Bytes carried without being able to read them (passthrough).
    public var opaqueBytes: (fromClient: Int, fromOrigin: Int) = (0, 0)
    public var upstreamFailure: String?

    public static let keptPlaintext = 64 << 10

    public var sawPlaintext: Bool { plaintextBytes.fromClient + plaintextBytes.fromOrigin > 0 }

    mutating func read(_ data: ArraySlice<UInt8>, from actor: NetworkEvent.Actor) {
        if actor == .client {
            plaintextBytes.fromClient += data.count
            plaintextFromClient += data.prefix(Self.keptPlaintext - plaintextFromClient.count)
        } else {
            plaintextBytes.fromOrigin += data.count
            plaintextFromOrigin += data.prefix(Self.keptPlaintext - plaintextFromOrigin.count)
        }
    }
}
