import NIOCore
import NIOEmbedded
import NIOHTTP1

/// HTTP/1.x framing, the only one mitmsim has: where a message's head ends, how long its body is, where the
/// message ends. NIOHTTP1's decoder (llhttp, the parser Node.js uses) decides all of it; this type runs it
/// synchronously over what our blocking sockets read, through an `EmbeddedChannel`, and bounds what it costs.
///
/// Every reader of HTTP uses it: the origin reading a request, the client reading a response, the proxy reading
/// a plain-HTTP or CONNECT head, the plain-HTTP relay, the TLS relay describing what it forwards, and the
/// benchmarks' load client. A message that llhttp refuses, or that is over a bound, is an `HTTPError`, never a trap.
final class HTTPFraming {
    enum Role: Sendable { case request, response }

    /// A message's head, as it arrived.
    struct Head: Sendable, Equatable {
        /// "POST /login HTTP/1.1" or "HTTP/1.1 200 OK", as sent.
        var startLine: String
        /// "Name: value" for each header, in the order sent.
        var headers: [String]
        /// Where the start line ends (at its CRLF) in the message as it arrived.
        var startLineEnd: Int
        /// Bytes of the head, through its blank line.
        var length: Int
        /// The body's length (0 for none); nil when it is chunked or, in a response, runs to the end of the stream.
        var bodyLength: Int?
    }

    enum Part: Equatable {
        case head(Head)
        /// Body bytes, with chunked framing removed.
        case body([UInt8])
        case end
    }

    /// The longest head read: a request from a browser or curl takes a few hundred bytes.
    static let longestHead = 8192
    /// The longest body read whole (a request an origin answers, a message the plain-HTTP relay forwards): a login
    /// form takes a few dozen bytes, the lessons' pages a few kilobytes.
    static let longestBody = 1 << 20
    /// How long a whole request (head and body) may take to arrive, however it trickles in.
    static let deadline: Duration = .seconds(10)

    let role: Role
    private let longestBody: Int
    private let keepsBody: Bool
    private let keepsRaw: Bool
    private let channel: EmbeddedChannel
    private var state = State.head
    /// The head's bytes while it is read, then the head alone.
    private var headBytes: [UInt8] = []
    /// Body bytes still to come when Content-Length announced them.
    private var remainingBody: Int? = nil
    private var bodyBytes = 0

    private enum State { case head, body, done, failed }

    /// The head, once read.
    private(set) var head: Head? = nil
    /// The body read so far (when kept), chunked framing removed.
    private(set) var body: [UInt8] = []
    /// The message as it arrived (when kept): head and body with their framing.
    private(set) var raw: [UInt8] = []

    /// - Parameters:
    ///   - longestBody: a longer body, announced or arriving, is an error.
    ///   - keepsBody: keep the body in `body` (a relay that only describes what it forwards does not).
    ///   - keepsRaw: keep the message as it arrived in `raw`, for a relay that forwards it.
    ///   - method: for a response, the method of the request it answers (a response to HEAD or CONNECT has no body).
    init(role: Role, longestBody: Int, keepsBody: Bool = true, keepsRaw: Bool = false, answering method: String = "GET") {
        self.role = role
        self.longestBody = longestBody
        self.keepsBody = keepsBody
        self.keepsRaw = keepsRaw
        let decoder: any ChannelHandler =
            switch role {
            case .request: ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes))
            case .response: ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes))
            }
        channel = EmbeddedChannel(handler: decoder)
        if role == .response {
            // The response decoder frames a response by the request it answers, which it learns from the request
            // written out; writing one to an embedded channel only queues it, and cannot fail.
            let request = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: "/")
            _ = try? channel.writeOutbound(HTTPClientRequestPart.head(request))
        }
    }

    deinit { _ = try? channel.finish() }

    /// The message ended (or its head handed the connection to another protocol: CONNECT, Upgrade).
    var isComplete: Bool { state == .done }

    /// Something of a message arrived.
    var hasStarted: Bool { !headBytes.isEmpty }

    /// Feeds bytes that arrived. Returns the parts they complete, and how many of them belong to this message:
    /// fewer than were given only when the message ended before them (or, with `headOnly`, its head did).
    func feed(_ bytes: ArraySlice<UInt8>, headOnly: Bool = false) throws(HTTPError) -> (parts: [Part], used: Int) {
        var parts: [Part] = []
        var rest = bytes
        do throws(HTTPError) {
            while !rest.isEmpty, state == .head || (state == .body && !headOnly) {
                let used = try state == .head ? feedHead(rest, into: &parts) : feedBody(rest, into: &parts)
                // Each round takes bytes or ends the message; a decoder that did neither must not spin here.
                guard used > 0 || state != .body else { throw .malformed("the body did not end where its length said") }
                if keepsRaw { raw += rest.prefix(used) }
                rest = rest.dropFirst(used)
            }
        } catch {
            state = .failed
            // What was refused is kept too: it is what a proxy read from the client.
            if keepsRaw { raw += rest }
            throw error
        }
        return (parts, bytes.count - rest.count)
    }

    /// The end of the stream: what it completes (a response that runs to the end of the stream ends here).
    /// An error when a message was cut short.
    func finish() throws(HTTPError) -> [Part] {
        switch state {
        case .done: return []
        case .failed: throw .malformed("the stream ended after an error")
        case .head where headBytes.allSatisfy(Self.isLineBreak):
            state = .done
            return []
        case .head, .body:
            state = .failed
            var parts: [Part] = []
            do {
                _ = try channel.finish(acceptAlreadyClosed: true)
            } catch {
                try collect(into: &parts, thrown: error)
            }
            try collect(into: &parts, thrown: nil)
            guard state == .done else { throw .malformed("the stream ended before the message did") }
            return parts
        }
    }

    // MARK: - Head and body

    /// Feeds head bytes, up to the head's blank line at most; returns how many it used.
    private func feedHead(_ bytes: ArraySlice<UInt8>, into parts: inout [Part]) throws(HTTPError) -> Int {
        let old = headBytes.count
        headBytes += bytes.prefix(Self.longestHead + 1 - old)
        guard let end = Self.headEnd(in: headBytes, searchingFrom: old), end <= Self.longestHead else {
            guard headBytes.count <= Self.longestHead else { throw .headTooLong(Self.longestHead) }
            try decode(bytes.prefix(headBytes.count - old), into: &parts)
            return headBytes.count - old
        }
        headBytes.removeSubrange(end...)
        let before = parts.count
        try decode(bytes.prefix(end - old), into: &parts)
        if parts.count == before, role == .response, state == .head {
            // An informational response (100 Continue), which the decoder drops: the real one follows.
            headBytes = []
        } else if head == nil {
            throw .malformed("the head did not end at its blank line")
        }
        return end - old
    }

    /// Feeds body bytes, up to the message's end when Content-Length tells it; returns how many it used.
    private func feedBody(_ bytes: ArraySlice<UInt8>, into parts: inout [Part]) throws(HTTPError) -> Int {
        let used = remainingBody.map { bytes.prefix($0) } ?? bytes
        try decode(used, into: &parts)
        return used.count
    }

    /// The index just past the blank line that ends a head, looking at what was not searched before. Line breaks
    /// before the start line are skipped, as llhttp skips them; llhttp takes only CRLF as a line break in a head,
    /// so the first empty line after the start line ends it.
    static func headEnd(in bytes: [UInt8], searchingFrom old: Int) -> Int? {
        guard let start = bytes.firstIndex(where: { !isLineBreak($0) }) else { return nil }
        var index = max(start, old - 3)
        while index + 4 <= bytes.count {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 { return index + 4 }
            index += 1
        }
        return nil
    }

    private static func isLineBreak(_ byte: UInt8) -> Bool { byte == 13 || byte == 10 }

    // MARK: - The decoder

    /// Runs llhttp over `bytes` and collects the parts it produces.
    private func decode(_ bytes: ArraySlice<UInt8>, into parts: inout [Part]) throws(HTTPError) {
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        var thrown: (any Error)? = nil
        do {
            try channel.writeInbound(buffer)
        } catch {
            thrown = error
        }
        try collect(into: &parts, thrown: thrown)
    }

    /// Reads what the decoder produced; an error it raised counts unless the message had ended before it.
    private func collect(into parts: inout [Part], thrown: (any Error)?) throws(HTTPError) {
        while let part = next() {
            switch part {
            case .head(let head):
                if let declared = head.bodyLength, declared > longestBody { throw .bodyTooLong(declared: declared, limit: longestBody) }
                self.head = head
                state = .body
                remainingBody = head.bodyLength
                parts.append(.head(head))
            case .body(let chunk):
                bodyBytes += chunk.count
                guard bodyBytes <= longestBody else { throw .bodyTooLong(declared: nil, limit: longestBody) }
                if let remaining = remainingBody { remainingBody = remaining - chunk.count }
                if keepsBody { body += chunk }
                parts.append(.body(chunk))
            case .end:
                state = .done
                parts.append(.end)
            }
            if state == .done { return }
        }
        if let thrown { throw .malformed(Self.reason(thrown)) }
    }

    /// The decoder's next part, as ours; nil when there is none.
    private func next() -> Part? {
        switch role {
        case .request:
            guard let part = try? channel.readInbound(as: HTTPServerRequestPart.self) else { return nil }
            switch part {
            case .head(let head): return .head(headPart(head.headers))
            case .body(let buffer): return .body(Array(buffer.readableBytesView))
            case .end: return .end
            }
        case .response:
            guard let part = try? channel.readInbound(as: HTTPClientResponsePart.self) else { return nil }
            switch part {
            case .head(let head): return .head(headPart(head.headers))
            case .body(let buffer): return .body(Array(buffer.readableBytesView))
            case .end: return .end
            }
        }
    }

    /// Our head from the decoder's headers and the bytes it was read from: the start line as sent (the decoder
    /// keeps a response's status code, not its reason phrase).
    private func headPart(_ headers: HTTPHeaders) -> Head {
        let start = headBytes.firstIndex { !Self.isLineBreak($0) } ?? 0
        let lineEnd = headBytes[start...].firstIndex(of: 13) ?? headBytes.endIndex
        // llhttp took the value as digits that fit 64 bits, perhaps with blanks around them (which it leaves in), and
        // refused a second Content-Length.
        let declared = headers["content-length"].first.map { $0.filter { $0 != " " && $0 != "\t" } }
        let bodyLength: Int? =
            if let declared { Int(declared) ?? Int.max } else if headers["transfer-encoding"].isEmpty, role == .request { 0 } else { nil }
        return Head(
            startLine: String(decoding: headBytes[start..<lineEnd], as: UTF8.self), headers: headers.map { "\($0.name): \($0.value)" },
            startLineEnd: lineEnd, length: headBytes.count, bodyLength: bodyLength)
    }

    private static func reason(_ error: any Error) -> String {
        guard let error = error as? HTTPParserError else { return "\(error)" }
        return switch error {
        case .invalidContentLength, .unexpectedContentLength: "an invalid Content-Length"
        case .invalidChunkSize: "an invalid chunk size"
        case .invalidMethod: "an invalid method"
        case .invalidURL: "an invalid request target"
        case .invalidVersion: "an invalid HTTP version"
        case .invalidStatus: "an invalid status"
        case .invalidHeaderToken: "an invalid header"
        case .invalidCharactersUsed, .lfExpected, .invalidConstant, .strictModeAssertion: "invalid characters"
        case .closedConnection: "data after the message that closes the connection"
        case .headerOverflow: "headers too long"
        default: "\(error)"
        }
    }
}

/// HTTP that cannot be read: refused in words, never a trap.
enum HTTPError: Error, Equatable, CustomStringConvertible {
    /// What llhttp refused.
    case malformed(String)
    case headTooLong(Int)
    /// `declared` is the Content-Length, when that is what is over `limit`.
    case bodyTooLong(declared: Int?, limit: Int)
    /// The message did not arrive whole within the deadline.
    case tooSlow

    /// The answer a server gives a request it cannot read this way.
    var answer: HTTPMessage {
        let (status, reason) =
            switch self {
            case .malformed: (400, "Bad Request")
            case .headTooLong: (431, "Request Header Fields Too Large")
            case .bodyTooLong: (413, "Content Too Large")
            case .tooSlow: (408, "Request Timeout")
            }
        return .response(status, reason, body: Array("\(self)\n".utf8), contentType: "text/plain; charset=utf-8")
    }

    var description: String {
        switch self {
        case .malformed(let reason): "malformed HTTP: \(reason)"
        case .headTooLong(let limit): "the head is longer than \(limit) bytes"
        case .bodyTooLong(let declared?, let limit): "a body of \(declared) bytes is over the limit of \(limit)"
        case .bodyTooLong(nil, let limit): "the body is longer than the limit of \(limit) bytes"
        case .tooSlow: "the message did not arrive whole within \(HTTPFraming.deadline.components.seconds) s"
        }
    }
}
