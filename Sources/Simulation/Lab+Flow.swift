import LoopbackTLS

extension Lab {
    /// One intercepted connection of the live lab, as the proxy saw it.
    public struct Flow: Sendable, Equatable, CustomStringConvertible {
        /// What became of the connection.
        public enum Outcome: Sendable, Equatable {
            /// Relayed without decrypting: the attacker saw only sizes.
            case passedThrough(encryptedBytes: Int)
            /// The client left before the proxy presented a certificate.
            case endedBeforeCertificate
            /// The client refused the chain during the handshake.
            case refused
            /// The client finished the handshake and sent nothing (curl's --pinnedpubkey and a bare
            /// s_client decide after the handshake).
            case silentAfterHandshake
            /// The client sent a request the attacker decrypted.
            case read(requestLine: String?, userAgent: String?)
        }

        /// The host the client asked for (SNI or CONNECT).
        public let host: String?
        /// Labels of the chain the proxy presented.
        public let presentedChain: [String]
        public let outcome: Outcome
        /// The lesson's secret, when the attacker read it in the request.
        public let stolenSecret: String?
        public let upstreamFailure: String?

        init(_ flow: InterceptedFlow, secret: String) {
            host = flow.host
            presentedChain = flow.presentedChain
            upstreamFailure = flow.upstreamFailure
            let request = String(decoding: flow.plaintextFromClient, as: UTF8.self)
            stolenSecret = !secret.isEmpty && request.contains(secret) ? secret : nil
            if flow.presentedChain.isEmpty {
                outcome =
                    flow.opaqueBytes.fromClient > 0
                    ? .passedThrough(encryptedBytes: flow.opaqueBytes.fromClient + flow.opaqueBytes.fromOrigin) : .endedBeforeCertificate
            } else if !flow.clientAccepted {
                outcome = .refused
            } else if !flow.sawPlaintext {
                outcome = .silentAfterHandshake
            } else {
                let head = request.components(separatedBy: "\r\n")
                let agent = head.first { $0.lowercased().hasPrefix("user-agent:") }
                outcome = .read(
                    requestLine: head.first.flatMap { $0.isEmpty ? nil : $0 },
                    userAgent: agent.map { $0.dropFirst("user-agent:".count).trimmingCharacters(in: .whitespaces) })
            }
        }

        /// "bank.test: presented 'forged bank-leaf' -> 'attacker-ca'; the client ACCEPTED it; STOLEN password 'hunter2'; READ POST /login …".
        public var description: String {
            let host = self.host ?? "(no server name)"
            let presented = "\(host): presented \(presentedChain.map { "'\($0)'" }.joined(separator: " -> ")); "
            switch outcome {
            case .passedThrough(let bytes): return "\(host): passed through, \(bytes) encrypted bytes, nothing read"
            case .endedBeforeCertificate: return "\(host): connection ended before a certificate was presented"
            case .refused: return presented + "the client REFUSED it, nothing read"
            case .silentAfterHandshake: return presented + "the client finished the handshake, then hung up without sending anything"
            case .read(let requestLine, let userAgent):
                var line = presented + "the client ACCEPTED it"
                if let stolenSecret { line += "; STOLEN password '\(stolenSecret)'" }
                if let requestLine { line += "; READ \(requestLine)" + (userAgent.map { " from \($0)" } ?? "") }
                if let upstreamFailure { line += "; upstream failed: \(upstreamFailure)" }
                return line
            }
        }
    }
}
