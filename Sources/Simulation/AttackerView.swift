import LoopbackTLS

/// What the attacker ended up with, as a learner needs to see it.
public struct AttackerView: Sendable {
    public let isOnPath: Bool
    /// The app connected to the attacker (false when it refused before opening any connection).
    public let connected: Bool
    /// The server name the attacker learned (SNI or CONNECT).
    public let host: String?
    /// The chain the attacker showed the client (empty for passthrough).
    public let presentedChain: [String]
    public let sawPlaintext: Bool
    /// The request's secret (the password) appears in what the attacker decrypted.
    public let readSecret: Bool
    /// The decrypted request and response, as text (the first 64 KiB at most).
    public let requestText: String
    public let responseText: String
    /// Encrypted bytes carried without reading them (passthrough).
    public let opaqueBytes: Int

    /// - Parameter waiting: an attacker was on the path, whether or not the app ever connected to it.
    init(flow: InterceptedFlow?, secret: String, waiting: Bool) {
        isOnPath = waiting || flow != nil
        connected = flow != nil
        host = flow?.host
        presentedChain = flow?.presentedChain ?? []
        sawPlaintext = flow?.sawPlaintext ?? false
        requestText = String(decoding: flow?.plaintextFromClient ?? [], as: UTF8.self)
        responseText = String(decoding: flow?.plaintextFromOrigin ?? [], as: UTF8.self)
        readSecret = !secret.isEmpty && requestText.contains(secret)
        opaqueBytes = (flow?.opaqueBytes.fromClient ?? 0) + (flow?.opaqueBytes.fromOrigin ?? 0)
    }

    /// What a passthrough attacker saw, in detail.
    public var ciphertextDetail: String {
        "ciphertext only: \(opaqueBytes) bytes. Server name seen in the ClientHello (SNI): '\(host ?? "none")'."
    }

    /// What the attacker got, in a few words for a table's cell: "password 'hunter2'", "ciphertext only", "nothing".
    public func loot(secret: String) -> String {
        guard isOnPath else { return "no attacker" }
        if !connected { return "not reached" }
        if readSecret { return "password '\(secret)'" }
        if sawPlaintext { return "traffic, no password" }
        return opaqueBytes > 0 ? "ciphertext only" : "nothing"
    }

    /// One sentence: what the attacker got.
    public func summary(secret: String) -> String {
        guard isOnPath else { return "There is no attacker on the path." }
        if !connected { return "The attacker was on the path, but the app never connected to it." }
        if readSecret { return "The attacker read the password '\(secret)'." }
        if sawPlaintext { return "The attacker read the traffic, but not the password." }
        if opaqueBytes > 0 { return "The attacker saw only the server name '\(host ?? "?")' and encrypted bytes." }
        return "The attacker read nothing."
    }
}
