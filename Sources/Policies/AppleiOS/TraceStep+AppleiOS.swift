/// The iOS client's checks around the policy: App Transport Security, the URLSession challenge, two-way TLS.
extension TraceStep.Check {
    /// ATS, before any connection: `http://` is refused (NSURLError -1022) unless a key allows it.
    public static let atsScheme = Self(rawValue: "atsScheme")
    /// ATS, in the handshake: the negotiated TLS version against the minimum (TLS 1.2 unless an exception lowers it).
    public static let atsTLSVersion = Self(rawValue: "atsTLSVersion")
    /// ATS, in the handshake: a forward-secret ECDHE suite with AES, or any TLS 1.3 suite.
    public static let atsCipherSuite = Self(rawValue: "atsCipherSuite")
    /// ATS, in the handshake: the leaf signed with SHA-256 or better, with an RSA ≥ 2048 or EC ≥ 256 bit key.
    public static let atsCertificateStrength = Self(rawValue: "atsCertificateStrength")
    /// Who answers the server-trust challenge: AFNetworking's policy, an accept-all block, or the system.
    public static let challengeHandler = Self(rawValue: "challengeHandler")
    /// The system's default evaluation when no delegate answers, or after AFNetworking 3.0.x's RejectProtectionSpace.
    public static let systemTrust = Self(rawValue: "systemTrust")
    /// What the handler told URLSession: UseCredential, CancelAuthenticationChallenge, PerformDefaultHandling or RejectProtectionSpace.
    public static let challengeDisposition = Self(rawValue: "challengeDisposition")
    /// ATS, after the handler: the system's default evaluation must trust the chain unless the domain is exempt.
    public static let atsServerTrust = Self(rawValue: "atsServerTrust")
    /// NSPinnedDomains (iOS 14+), inside the system's SSL-policy evaluation: the leaf's key among `NSPinnedLeafIdentities`,
    /// a CA key of the path among `NSPinnedCAIdentities`.
    public static let pinnedIdentities = Self(rawValue: "pinnedIdentities")
    /// Two-way TLS: the identity the app answers the client-certificate challenge with, from its `.p12`.
    public static let clientCertificate = Self(rawValue: "clientCertificate")
    /// Apple's Certificate Transparency requirement (iOS 12.1.1+), part of every SSL-policy evaluation: SCTs from enough
    /// distinct known logs on a leaf at a root built into iOS.
    public static let certificateTransparency = Self(rawValue: "certificateTransparency")

    /// Every check above, as the registry of client libraries lists them.
    public static let appleIOSChecks: [Self] = [
        .atsScheme, .atsTLSVersion, .atsCipherSuite, .atsCertificateStrength, .challengeHandler, .systemTrust, .challengeDisposition, .atsServerTrust,
        .pinnedIdentities, .clientCertificate, .certificateTransparency,
    ]
}
