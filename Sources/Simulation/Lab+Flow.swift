import LoopbackTLS

extension Lab {
    /// The latest connections a lab keeps, and how many it has seen in all.
    public struct FlowWindow: Sendable {
        /// How many of the latest connections a lab keeps: many screens' worth, and a few megabytes at most even
        /// when every client sends the longest texts a flow keeps.
        public static let size = 200

        /// The latest connections, oldest first: at most `size`.
        public private(set) var flows: [Flow] = []
        /// Every connection the lab has seen, kept or not.
        public private(set) var total = 0

        public init() {}

        /// Connections older than `flows` that the lab no longer keeps.
        public var dropped: Int { total - flows.count }

        /// How many of the latest notices (`Lab.noticeText`) a lab keeps for its screen.
        public static let noticesKept = 3
        /// The latest lines about connections the lab refused or could not accept, oldest first: what `lab --tui`
        /// shows the teacher where the plain lab prints `[lab]` lines.
        public private(set) var notices: [String] = []

        mutating func append(_ flow: Flow) {
            if flows.count == Self.size { flows.removeFirst() }
            flows.append(flow)
            total += 1
        }

        mutating func note(_ notice: String) {
            if notices.count == Self.noticesKept { notices.removeFirst() }
            notices.append(notice)
        }
    }

    /// One connection to the live lab's attacker, as the proxy saw it: what identifies the connection,
    /// and only what the proxy observed, with what that can mean.
    public struct Flow: Sendable, Equatable, CustomStringConvertible {
        /// What became of the connection.
        public enum Outcome: Sendable, Equatable {
            /// Relayed without decrypting: the attacker saw only sizes.
            case passedThrough(encryptedBytes: Int)
            /// The proxy answered an HTTP request itself (a refused CONNECT, or its own page): the request
            /// line when it had one, and the answer ("403 Forbidden (…)", "200 OK").
            case answered(requestLine: String?, status: String)
            /// The proxy closed a TLS connection for a host it does not route, saying why.
            case notRouted(reason: String)
            /// The connection ended before the proxy presented a certificate.
            case endedBeforeCertificate
            /// The proxy's own connection to the host failed before it could present anything, for this reason
            /// (the bank refused or timed out, or the system was out of ports or descriptors).
            case upstreamFailed(reason: String)
            /// The handshake with the presented chain failed (an alert from the client, or it hung up).
            case refused
            /// The client completed the handshake and closed without sending a request.
            case closedAfterHandshake
            /// The client completed the handshake and then sent nothing until the proxy's timeout.
            case idleAfterHandshake
            /// The client sent a request the attacker decrypted.
            case read(requestLine: String?, userAgent: String?)
            /// A connection to the lab's trust check (not the attacker): whether the device accepted a certificate the
            /// lab's CA issued (it completed the handshake and asked for the page) or refused it.
            case trustCheck(trusted: Bool)
        }

        /// The connection's number: #1, #2, … in the order connections reached the attacker.
        public let number: Int
        /// The host the connection was routed to or refused for (CONNECT's host, else SNI, else the bank).
        public let host: String?
        /// What the client asked HTTP CONNECT for ("bank.test:443"); nil when it did not use CONNECT.
        public let connectTarget: String?
        /// The server name in the ClientHello (SNI).
        public let serverName: String?
        /// The application protocols the ClientHello offered (ALPN); nil when no ClientHello was read.
        public let offeredProtocols: [String]?
        /// The User-Agent of the first request read on the connection.
        public let userAgent: String?
        /// Labels of the chain the proxy presented.
        public let presentedChain: [String]
        public let outcome: Outcome
        /// The password the attacker read in the request (the form's `password` field, or the lesson's secret).
        public let stolenSecret: String?
        /// The alert the client sent when it refused the handshake ("unknown_ca").
        public let clientAlert: String?
        public let upstreamFailure: String?

        /// Each text a client chose (a host, a header, a password) is kept up to this many characters, and
        /// ALPN up to `keptProtocols` protocols, so a flow stays small whatever a client sends.
        public static let keptCharacters = 200
        public static let keptProtocols = 16

        init(_ flow: InterceptedFlow, secret: String) {
            number = flow.number
            host = flow.host.map(Self.clipped)
            connectTarget = flow.connectTarget.map(Self.clipped)
            serverName = flow.serverName.map(Self.clipped)
            offeredProtocols = flow.offeredProtocols.map { protocols in
                protocols.prefix(Self.keptProtocols).map(Self.clipped) + (protocols.count > Self.keptProtocols ? ["…"] : [])
            }
            presentedChain = flow.presentedChain
            clientAlert = flow.clientAlert
            upstreamFailure = flow.upstreamFailure
            let request = HTTPMessage.first(in: flow.plaintextFromClient)
            // A request the parser refuses (a control character in its request line) was read all the same: its first line.
            let firstLine = flow.plaintextFromClient.prefix { $0 != 13 && $0 != 10 }
            let requestLine = request.map { Self.clipped($0.startLine) } ?? (firstLine.isEmpty ? nil : Self.clipped(String(decoding: firstLine, as: UTF8.self)))
            userAgent = request?.header("User-Agent").map(Self.clipped)
            let password = request.flatMap { BankApp.form($0.body)["password"] }.flatMap { $0.isEmpty ? nil : Self.clipped($0) }
            let plaintext = String(decoding: flow.plaintextFromClient, as: UTF8.self)
            stolenSecret = password ?? (!secret.isEmpty && plaintext.contains(secret) ? secret : nil)
            if let answer = flow.answer {
                outcome = .answered(requestLine: requestLine, status: Self.clipped(answer))
            } else if let refusal = flow.refusal {
                outcome = .notRouted(reason: refusal)
            } else if flow.presentedChain.isEmpty, flow.opaqueBytes.fromClient > 0 {
                outcome = .passedThrough(encryptedBytes: flow.opaqueBytes.fromClient + flow.opaqueBytes.fromOrigin)
            } else if flow.presentedChain.isEmpty {
                outcome = flow.upstreamFailure.map { .upstreamFailed(reason: Self.clipped($0)) } ?? .endedBeforeCertificate
            } else if !flow.clientAccepted {
                outcome = .refused
            } else if let requestLine {
                outcome = .read(requestLine: requestLine, userAgent: userAgent)
            } else {
                outcome = flow.relayTimedOut ? .idleAfterHandshake : .closedAfterHandshake
            }
        }

        /// A connection to the trust check: `userAgent` when the device asked for the page, else the alert it refused
        /// `presentedChain` with (nil when it hung up without one).
        init(trustCheck number: Int, presentedChain: [String], trusted: Bool, userAgent: String?, alert: String?) {
            self.number = number
            (host, connectTarget, serverName, offeredProtocols, stolenSecret, upstreamFailure) = (nil, nil, nil, nil, nil, nil)
            self.userAgent = userAgent.map(Self.clipped)
            self.presentedChain = presentedChain
            clientAlert = alert
            outcome = .trustCheck(trusted: trusted)
        }

        /// `text` up to `keptCharacters` (counted in Unicode scalars, so no character can hide a long tail), then "…".
        static func clipped(_ text: String) -> String {
            let scalars = text.unicodeScalars
            guard scalars.count > keptCharacters else { return text }
            var kept = String.UnicodeScalarView(scalars.prefix(keptCharacters - 1))
            kept.append("…")
            return String(kept)
        }

        /// "#2 CONNECT bank.test:443", "#3 transparent TLS", "#4 plain HTTP": the connection's number and how it came.
        public var connection: String {
            if case .trustCheck = outcome { return "trust check #\(number)" }
            return "#\(number) " + (connectTarget.map { "CONNECT \($0)" } ?? (isPlainHTTP ? "plain HTTP" : "transparent TLS"))
        }

        /// "SNI 'bank.test', ALPN h2, http/1.1, User-Agent 'curl/7.88.1'": what the client said about itself.
        public var clientDetails: String {
            var parts: [String] = []
            if showsTLSDetails {
                parts.append(serverName.map { "SNI '\($0)'" } ?? "no SNI" + (host.map { " (routed to '\($0)')" } ?? ""))
                if let offeredProtocols { parts.append(offeredProtocols.isEmpty ? "no ALPN" : "ALPN " + offeredProtocols.joined(separator: ", ")) }
            }
            if let userAgent { parts.append("User-Agent '\(userAgent)'") }
            return parts.joined(separator: ", ")
        }

        /// The proxy answered it in HTTP: it never reached TLS.
        private var isPlainHTTP: Bool {
            if case .answered = outcome { return true }
            return false
        }

        /// What the proxy reads of a ClientHello (SNI, ALPN) is worth showing: not for plain HTTP, nor for the trust
        /// check, which does not read it.
        private var showsTLSDetails: Bool {
            if case .trustCheck = outcome { return false }
            return !isPlainHTTP
        }

        /// "#1 CONNECT bank.test:443: STOLEN password 'hunter2'; presented 'forged bank-leaf' -> 'attacker-ca'; the
        /// client ACCEPTED it; READ POST /login HTTP/1.1 [SNI 'bank.test', no ALPN, User-Agent '…']".
        public var description: String {
            let chain = presentedChain.map { "'\($0)'" }.joined(separator: " -> ")
            let presented = "presented \(chain); "
            let what: String
            switch outcome {
            case .passedThrough(let bytes): what = "passed through, \(bytes) encrypted bytes, nothing read"
            case .answered(let requestLine, let status): what = "the proxy answered " + (requestLine.map { "'\($0)' with " } ?? "") + status
            case .notRouted(let reason): what = "closed without presenting a certificate: \(reason)"
            case .endedBeforeCertificate: what = "the connection ended before a certificate was presented"
            case .upstreamFailed(let reason):
                what = "the attacker's own connection to \(host.map { "'\($0)'" } ?? "the server") failed, so it presented nothing: \(reason)"
            case .refused:
                what =
                    presented
                    + (clientAlert.map { "the client REFUSED it with alert \($0), nothing read" }
                        ?? "the client closed the connection during the handshake, which is how some clients refuse a certificate; nothing read")
            case .closedAfterHandshake:
                what =
                    presented
                    + "the client completed the handshake and closed without sending a request, which happens when a client rejects "
                    + "the certificate after the handshake (curl --pinnedpubkey) or when it had nothing to send (openssl s_client </dev/null)"
            case .idleAfterHandshake:
                what =
                    presented
                    + "the client completed the handshake, then sent nothing until the proxy's timeout closed the connection, "
                    + "which happens when a browser opens a spare connection it does not use"
            case .read(let requestLine, _):
                // The theft first: it is what the room is watching for.
                var line = (stolenSecret.map { "STOLEN password '\($0)'; " } ?? "") + presented + "the client ACCEPTED it"
                if let requestLine { line += "; READ \(requestLine)" }
                if let upstreamFailure { line += "; upstream failed: \(upstreamFailure)" }
                what = line
            case .trustCheck(true):
                what = "this device TRUSTS the lab's CA: it accepted \(chain) and asked for the page"
            case .trustCheck(false):
                what =
                    "this device does NOT trust the lab's CA yet: "
                    + (clientAlert.map { "it refused \(chain) with alert \($0)" }
                        ?? "it closed the connection during the handshake, which is how some clients refuse a certificate")
            }
            // What happened first, so a narrow screen keeps it; what the client said about itself last.
            return "\(connection): \(what)" + (clientDetails.isEmpty ? "" : " [\(clientDetails)]")
        }
    }
}
