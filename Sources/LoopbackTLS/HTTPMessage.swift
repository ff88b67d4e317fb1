import Foundation

/// A minimal HTTP/1.1 message: enough for a login form and its answer, with `Content-Length` framing.
public struct HTTPMessage: Hashable, Sendable {
    /// "POST /login HTTP/1.1" or "HTTP/1.1 200 OK".
    public var startLine: String
    public var headers: [String]
    public var body: [UInt8]

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

    public var serialized: [UInt8] {
        let head = ([startLine] + headers + ["Content-Length: \(body.count)", "Connection: close"]).joined(separator: "\r\n") + "\r\n\r\n"
        return Array(head.utf8) + body
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
        return headers.first { $0.lowercased().hasPrefix(prefix) }.map { $0.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces) }
    }

    /// The first complete message at the start of `bytes` (what a proxy read), or nil when they hold none.
    public static func first(in bytes: [UInt8]) -> HTTPMessage? {
        var unread = bytes
        return try? read {
            defer { unread = [] }
            return unread
        }
    }

    /// Reads one message through `read` (which returns empty at end of stream).
    static func read(maximumBody: Int = 1 << 20, from read: () throws -> [UInt8]) throws -> HTTPMessage? {
        var buffer: [UInt8] = []
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var found = buffer.firstRange(of: separator)
        while found == nil {
            let chunk = try read()
            if chunk.isEmpty { return nil }
            buffer += chunk
            if buffer.count > 64 << 10 { throw HTTPError.malformed("the header is larger than 64 KiB") }
            found = buffer.firstRange(of: separator)
        }
        guard let end = found else { return nil }
        let lines = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        var body = Array(buffer[end.upperBound...])
        let length =
            lines.dropFirst().compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                return parts.count == 2 && parts[0].lowercased() == "content-length" ? Int(parts[1].trimmingCharacters(in: .whitespaces)) : nil
            }.first ?? 0
        guard length <= maximumBody else { throw HTTPError.malformed("a body of \(length) bytes is over the limit") }
        while body.count < length {
            let chunk = try read()
            if chunk.isEmpty { throw HTTPError.malformed("the body ended after \(body.count) of \(length) bytes") }
            body += chunk
        }
        let headers = lines.dropFirst().filter { !$0.lowercased().hasPrefix("content-length:") && !$0.lowercased().hasPrefix("connection:") }
        return HTTPMessage(startLine: lines[0], headers: Array(headers), body: Array(body.prefix(length)))
    }
}

enum HTTPError: Error, CustomStringConvertible {
    case malformed(String)

    var description: String {
        switch self {
        case .malformed(let reason): "malformed HTTP: \(reason)"
        }
    }
}
