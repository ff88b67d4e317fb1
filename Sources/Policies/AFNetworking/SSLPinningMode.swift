/// AFNetworking's `AFSSLPinningMode`: what, beyond the chain, the server must match.
public enum SSLPinningMode: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Trust the chain (or not) as the system does; nothing is pinned.
    case none
    /// Some public key in the path must be the key of a pinned certificate.
    case publicKey
    /// The chain must end at a pinned certificate, which must be in the path byte for byte.
    case certificate

    public var description: String { rawValue }
}
