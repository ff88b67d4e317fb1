/// What a handshake had settled when the server's certificate reached the client's judge: the protocol
/// version and the cipher suite, which App Transport Security judges along with the chain.
public struct NegotiatedTLS: Sendable, Hashable {
    public var version: TLSVersion
    /// The suite's IANA name, e.g. `TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256` or `TLS_AES_128_GCM_SHA256`.
    public var cipherSuite: String

    public init(version: TLSVersion, cipherSuite: String) {
        self.version = version
        self.cipherSuite = cipherSuite
    }
}
