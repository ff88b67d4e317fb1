/// AFNetworking's own rejections: step 1's contradictory settings, and those of the 2.x releases that 4.x cannot make.
extension RejectionReason {
    /// Step 1: AFNetworking refuses allowInvalidCertificates + validatesDomainName without pins.
    public static let contradictorySettings = Self(code: "contradictorySettings")
    /// 2.1–2.2.0, certificate mode with validatesCertificateChain NO: the leaf is not pinned.
    public static let leafCertificateNotPinned = Self(code: "leafCertificateNotPinned")
    /// 2.1–2.5.3, public-key mode with validatesCertificateChain NO: the leaf's key is not pinned.
    public static let leafPublicKeyNotPinned = Self(code: "leafPublicKeyNotPinned")
    /// 2.1–2.5.3, certificate mode with validatesCertificateChain YES: some certificate of the path is not pinned.
    public static let unpinnedCertificateInPath = Self(code: "unpinnedCertificateInPath")
    /// 2.1–2.5.3, public-key mode with validatesCertificateChain YES: fewer key matches than certificates in the path.
    public static let unpinnedPublicKeyInPath = Self(code: "unpinnedPublicKeyInPath")
    /// 2.2.0: the leaf's subject summary does not match the domain.
    public static let commonNameMismatch = Self(code: "commonNameMismatch")
}
