import PKI

extension SignatureDigest {
    static let choices: [String: SignatureDigest] = ["sha1": .sha1, "sha256": .sha256]
}
