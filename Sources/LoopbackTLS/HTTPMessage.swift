import Foundation

/// A minimal HTTP/1.1 message: enough for a login form and its answer, sent with `Content-Length` framing.
public struct HTTPMessage: Hashable, Sendable {
    /// "POST /login HTTP/1.1" or "HTTP/1.1 200 OK".
    public var startLine: String
    public var headers: [String]
    public var body: [UInt8]
    /// A body made as it is sent instead of `body`, never held whole (`response(_:_:repeating:count:contentType:)`).
    private var generated: Generated?

    private struct Generated: Hashable, Sendable {
        var byte: UInt8
        var count: Int
    }

    public init(startLine: String, headers: [String] = [], body: [UInt8] = []) {
        self.startLine = startLine
        self.headers = headers
        self.body = body
    }

    /// A request with `Host`, `Content-Length` and `Connection: close` filled in.
    public static func request(_ method: String, _ path: String, host: String, body: [UInt8] = [], contentType: String? = nil) -> HTTPMessage {
        HTTPMessage(
            startLine: "\(method) \(path) HTTP/1.1",
            headers: ["Host: \(host)"] + (contentType.map { ["Content-Type: \($0)"] } ?? []), body: body)
    }

    public static func response(_ status: Int, _ reason: String, body: [UInt8], contentType: String = "text/html; charset=utf-8") -> HTTPMessage {
        HTTPMessage(startLine: "HTTP/1.1 \(status) \(reason)", headers: ["Content-Type: \(contentType)"], body: body)
    }

    /// A response of `count` copies of `byte`, made while it is sent: it costs a piece's worth of memory, however long.
    public static func response(_ status: Int, _ reason: String, repeating byte: UInt8, count: Int, contentType: String) -> HTTPMessage {
        var response = HTTPMessage.response(status, reason, body: [], contentType: contentType)
        response.generated = Generated(byte: byte, count: count)
        return response
    }

    /// The message as sent; for a generated body, prefer `serialize(inPiecesOf:to:)`.
    public var serialized: [UInt8] {
        var bytes: [UInt8] = []
        serialize(inPiecesOf: .max) { bytes += $0 }
        return bytes
    }

    /// How long the message is as sent.
    public var serializedCount: Int { head.count + (generated?.count ?? body.count) }

    private var head: [UInt8] {
        let bodyCount = generated?.count ?? body.count
        return Array((([startLine] + headers + ["Content-Length: \(bodyCount)", "Connection: close"]).joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// Hands the message as sent to `write`, in pieces of at most `size` bytes made one at a time.
    public func serialize(inPiecesOf size: Int, to write: ([UInt8]) throws -> Void) rethrows {
        let head = self.head
        let total = head.count + (generated?.count ?? body.count)
        var start = 0
        while start < total {
            let end = start + min(size, total - start)
            var piece = start < head.count ? Array(head[start..<min(end, head.count)]) : []
            let bodyRange = (max(start, head.count) - head.count)..<(end - head.count)
            if !bodyRange.isEmpty {
                if let generated {
                    piece += [UInt8](repeating: generated.byte, count: bodyRange.count)
                } else {
                    piece += body[bodyRange]
                }
            }
            try write(piece)
            start = end
        }
    }

    /// "POST /login" for requests, "200 OK" for responses.
    public var summary: String {
        let parts = startLine.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count == 3 else { return startLine }
        return parts[0].hasPrefix("HTTP/") ? "HTTP response \(parts[1]) \(parts[2])" : "HTTP request \(parts[0]) \(parts[1])"
    }

    /// The request method and path ("POST", "/login").
    public var requestTarget: (method: String, path: String)? {
        let parts = startLine.split(separator: " ")
        return parts.count == 3 && !parts[0].hasPrefix("HTTP/") ? (String(parts[0]), String(parts[1])) : nil
    }

    /// The value of the first header called `name` (case-insensitive), e.g. "curl/7.88.1" for "User-Agent".
    public func header(_ name: String) -> String? {
        let prefix = name.lowercased() + ":"
        return headers.first { $0.lowercased().hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)).trimmingWhiteSpace(includingLineBreaks: false) }
    }

    /// The first complete request at the start of `bytes` (what a proxy read), or nil when they hold none.
    public static func first(in bytes: [UInt8]) -> HTTPMessage? {
        let framing = HTTPFraming(role: .request, longestBody: HTTPFraming.longestBody)
        _ = try? framing.feed(bytes[...])
        return framing.isComplete ? framing.message : nil
    }
}
