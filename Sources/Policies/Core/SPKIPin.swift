import Foundation

/// A pin on a public key: the SHA-256 digest of a certificate's SubjectPublicKeyInfo, in base64, as TrustKit's
/// `TSKPublicKeyHashes`, Android's `<pin digest="SHA-256">` and OkHttp's `sha256/` pins write it.
public struct SPKIPin: Sendable, Hashable {
    /// The digest's 32 bytes: two pins written differently are one pin when these are equal.
    public let digest: Data

    /// Nil unless `base64` is the base64 of exactly 32 bytes, the length of a SHA-256 digest.
    public init?(base64: String) {
        guard let digest = Data(base64Encoded: base64), digest.count == 32 else { return nil }
        self.digest = digest
    }
}
