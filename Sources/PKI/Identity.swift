/// A certificate together with its private key: what a server presents and an authority signs with.
public struct Identity: Sendable {
    public let certificate: Certificate
    public let privateKey: PrivateKey

    public init(certificate: Certificate, privateKey: PrivateKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }
}

extension Identity {
    /// The same identity with its certificate under another label.
    public func relabeled(_ label: String) -> Identity {
        Identity(certificate: certificate.relabeled(label), privateKey: privateKey)
    }
}
