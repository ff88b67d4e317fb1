/// One thing that happened on the network during a run, told from the point of view of who did it.
///
/// Messages are recorded by their *sender* only, so each appears once; `EventLog` merges the three
/// parties' streams into one order that respects cause and effect, whatever the thread timing.
public struct NetworkEvent: Hashable, Sendable, CustomStringConvertible {
    public enum Actor: String, Hashable, Sendable, CaseIterable, Comparable {
        case client, proxy, origin

        /// Left to right on the wire: client, proxy, origin.
        private var order: Int {
            switch self {
            case .client: 0
            case .proxy: 1
            case .origin: 2
            }
        }

        public static func < (lhs: Actor, rhs: Actor) -> Bool { lhs.order < rhs.order }
    }

    public enum Kind: Hashable, Sendable {
        /// A TLS handshake message this party sent.
        case handshake(HandshakeMessage)
        /// A TLS alert this party sent, with why (when the reason is known).
        case alert(level: String, name: String, reason: String?)
        case changeCipherSpec
        /// The client's judge ruled on the chain the client was shown.
        case judged(accepted: Bool, chain: [String], summary: String)
        case handshakeCompleted(version: String, cipher: String)
        case handshakeFailed(reason: String)
        /// Application data this party sent; only its peer (the other end of the TLS session) can read it.
        case applicationData(bytes: Int, summary: String)
        /// The origin received a request.
        case requestReceived(summary: String)
        /// The client received a response.
        case responseReceived(summary: String)
        /// The proxy was asked for a host (SNI or CONNECT) and what it will do.
        case intercepting(host: String, plan: String)
        /// The proxy saw the real server's chain upstream.
        case upstreamChain([String])
        /// The proxy holds a forgery for `host` already (copied from the real leaf labelled `copied`): it presents it
        /// at once and handshakes with the real server at the same time.
        case reusingForgery(host: String, copied: String)
        /// The real server presented the leaf the reused forgery copied: the proxy may relay.
        case forgeryConfirmed(copied: String)
        /// As `reusingForgery`, and the proxy offers the real server to resume a session it issued to the proxy
        /// after a handshake in which it presented `copied`.
        case reusingForgeryResuming(host: String, copied: String)
        /// The real server resumed that session (presenting no certificate): the proxy may relay.
        case sessionResumed(copied: String)
        /// The proxy picked the chain to present to the client.
        case presenting(chain: [String], note: String)
        /// The proxy decrypted traffic: what the attacker read.
        case plaintextRead(from: Actor, bytes: Int, preview: String)
        /// Passthrough summary: TLS records the proxy carried without reading them. (Records, not bytes:
        /// byte counts change from run to run with the length of ECDSA signatures.)
        case relayed(recordsFromClient: Int, recordsFromOrigin: Int)
        case upstreamFailed(reason: String)
        case refused(reason: String)
        /// The peer closed (or vanished) before the exchange finished.
        case peerVanished(during: String)
        /// The client speaks plain HTTP to `host`: no TLS, so no handshake and no certificate to judge.
        case plainHTTP(host: String)
        /// Data this party sent without TLS: anyone on the path reads it.
        case unencryptedData(bytes: Int, summary: String)
        /// This party could not open a TCP connection.
        case connectionFailed(reason: String)
    }

    public let actor: Actor
    public let kind: Kind
    /// Who received what `actor` sent (the other end of its TLS session); nil for things not sent.
    public let peer: Actor?

    public init(_ actor: Actor, _ kind: Kind, to peer: Actor? = nil) {
        self.actor = actor
        self.kind = kind
        self.peer = peer
    }

    /// "client → proxy   ClientHello …": deterministic (no ports, times or serials).
    public var description: String {
        let parties = actor.rawValue + (peer.map { " → \($0.rawValue)" } ?? "")
        return parties.padding(toLength: 17, withPad: " ", startingAt: 0) + text
    }

    /// The sentence alone, without the actor column.
    public var text: String {
        switch kind {
        case .handshake(let message): return message.description
        case .alert(let level, let name, let reason): return "Alert \(level) \(name)" + (reason.map { ": \($0)" } ?? "")
        case .changeCipherSpec: return "ChangeCipherSpec"
        case .judged(let accepted, let chain, let summary):
            return "\(accepted ? "ACCEPTED" : "REJECTED") the chain \(chain.map { "'\($0)'" }.joined(separator: " -> ")): \(summary)"
        case .handshakeCompleted(let version, let cipher): return "handshake complete: \(version), \(cipher)"
        case .handshakeFailed(let reason): return "handshake failed: \(reason)"
        case .applicationData(let bytes, let summary):
            return "application data, \(bytes) bytes (\(summary))" + (peer.map { ", readable only by the \($0.rawValue)" } ?? "")
        case .plainHTTP(let host):
            return "plain HTTP to '\(host)': no TLS handshake, no certificate to judge; the request goes out readable by anyone on the path"
        case .unencryptedData(let bytes, let summary): return "unencrypted data, \(bytes) bytes (\(summary)), readable by anyone on the path"
        case .connectionFailed(let reason): return "could not connect: \(reason)"
        case .requestReceived(let summary): return "received \(summary)"
        case .responseReceived(let summary): return "received \(summary)"
        case .intercepting(let host, let plan): return "intercepting '\(host)': \(plan)"
        case .upstreamChain(let chain): return "the real server presented \(chain.map { "'\($0)'" }.joined(separator: " -> "))"
        case .reusingForgery(let host, let copied):
            return "reuses the forgery it made for '\(host)' from '\(copied)': presents it at once and handshakes with the real server "
                + "meanwhile, relaying nothing until the real server presents '\(copied)' again"
        case .forgeryConfirmed(let copied): return "the real server presented '\(copied)' again, as the reused forgery copied: relaying"
        case .reusingForgeryResuming(let host, let copied):
            return "reuses the forgery it made for '\(host)' from '\(copied)': presents it at once and meanwhile offers the real server "
                + "to resume the session it issued after presenting '\(copied)', relaying nothing until the server resumes it "
                + "(only the server that issued it can) or presents '\(copied)' again"
        case .sessionResumed(let copied):
            return "the real server resumed the session: it presents no certificate in a resumed handshake, and the session holds "
                + "'\(copied)', which the reused forgery copied: relaying"
        case .presenting(let chain, let note): return "presents \(chain.map { "'\($0)'" }.joined(separator: " -> ")) (\(note))"
        case .plaintextRead(let from, let bytes, let preview): return "READ \(bytes) bytes of plaintext from the \(from.rawValue): \(preview)"
        case .relayed(let fromClient, let fromOrigin):
            return "relayed \(fromClient) TLS records from the client and \(fromOrigin) from the origin without reading them"
        case .upstreamFailed(let reason): return "upstream failed: \(reason)"
        case .refused(let reason): return "refused the connection: \(reason)"
        case .peerVanished(let during): return "the peer closed the connection during \(during)"
        }
    }
}

/// A TLS handshake message, with the details a learner looks for.
public enum HandshakeMessage: Hashable, Sendable, CustomStringConvertible {
    case clientHello(serverName: String?, versions: [String])
    case serverHello(version: String, cipher: String)
    case helloRetryRequest
    case encryptedExtensions
    case certificate(chain: [String])
    case certificateRequest
    case serverKeyExchange
    case serverHelloDone
    case clientKeyExchange
    case certificateVerify
    case finished
    case newSessionTicket
    case other(type: UInt8)

    public var description: String {
        switch self {
        case .clientHello(let name, let versions):
            "ClientHello (SNI \(name.map { "'\($0)'" } ?? "none"), offers \(versions.joined(separator: ", ")))"
        case .serverHello(let version, let cipher): "ServerHello (\(version), \(cipher))"
        case .helloRetryRequest: "HelloRetryRequest"
        case .encryptedExtensions: "EncryptedExtensions"
        case .certificate(let chain): chain.isEmpty ? "Certificate (empty)" : "Certificate \(chain.map { "'\($0)'" }.joined(separator: " -> "))"
        case .certificateRequest: "CertificateRequest"
        case .serverKeyExchange: "ServerKeyExchange"
        case .serverHelloDone: "ServerHelloDone"
        case .clientKeyExchange: "ClientKeyExchange"
        case .certificateVerify: "CertificateVerify"
        case .finished: "Finished"
        case .newSessionTicket: "NewSessionTicket"
        case .other(let type): "handshake message \(type)"
        }
    }
}
