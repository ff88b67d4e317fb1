/// One direction of the TLS relay, read as HTTP through `HTTPFraming`: which forwarded chunk starts a message,
/// how long the whole message is, and what it shows an attacker.
///
/// A message is announced with the chunk that completes its head, with the length its Content-Length gives; the
/// chunks that complete it are not announced again. A chunk that starts no message it can read (not HTTP, or
/// the rest of a chunked body, whose length nobody announced) is announced as so many bytes, shown printable.
final class RelayedMessages {
    /// What the relay says of a chunk that starts a message.
    struct Description: Equatable {
        /// "HTTP request POST /login", or "16384 bytes".
        var summary: String
        var length: Int
        /// The start line and, for a small message, the body ("POST /login HTTP/1.1 | username=alice&password=hunter2").
        var preview: String
    }

    /// The most a relayed message may announce: far beyond any download, and byte counts stay far from overflowing.
    static let longestBody = 1 << 40

    private let role: HTTPFraming.Role
    /// The current message's framing; nil between messages, made when the next one starts.
    private var framing: HTTPFraming?
    /// The stream held something that is not HTTP: from then on it is only counted.
    private var isHTTP = true
    /// Bytes of the announced message still to come.
    private var unannounced = 0
    /// Bytes of the current message forwarded before its head was complete.
    private var forwardedBeforeHead = 0
    /// Body bytes still to come of a message whose length llhttp read: forwarded without parsing them again (a
    /// download is mostly these), the next message starts after them.
    private var skipping = 0

    init(role: HTTPFraming.Role) { self.role = role }

    /// How to announce `data`, the next chunk forwarded; nil when it continues the message announced last.
    func describe(_ data: ArraySlice<UInt8>) -> Description? {
        let continues = unannounced >= data.count
        unannounced = continues ? unannounced - data.count : 0
        let skipped = min(skipping, data.count)
        skipping -= skipped
        let (head, body) = feed(data.dropFirst(skipped))
        if continues { return nil }
        let summary = head.map { HTTPMessage(startLine: $0.startLine).summary }
        guard skipped == 0, let head, let summary, summary.hasPrefix("HTTP ") else { return Self.counted(data) }
        let length = head.bodyLength.map { head.length + $0 - forwardedBeforeHead } ?? data.count
        unannounced = max(0, length - data.count)
        forwardedBeforeHead = 0
        if head.bodyLength != nil, framing?.isComplete == false {
            skipping = unannounced
            framing = nil
        }
        return Description(summary: summary, length: length, preview: Interception.preview(head, body: body[...]))
    }

    /// Feeds `data` to the framing (a new one for each message); returns the head it completed, if any, with the
    /// body bytes that came with it.
    private func feed(_ data: ArraySlice<UInt8>) -> (head: HTTPFraming.Head?, body: [UInt8]) {
        var rest = data
        var completed: (head: HTTPFraming.Head?, body: [UInt8]) = (nil, [])
        while !rest.isEmpty, isHTTP {
            if framing?.isComplete ?? true { framing = HTTPFraming(role: role, longestBody: Self.longestBody, keepsBody: false) }
            guard let current = framing, let (parts, used) = try? current.feed(rest) else {
                isHTTP = false
                break
            }
            if completed.head == nil, current.head == nil || parts.contains(where: { if case .head = $0 { true } else { false } }) {
                for part in parts {
                    switch part {
                    case .head(let head): completed.head = head
                    case .body(let bytes) where completed.body.count < 1024: completed.body += bytes.prefix(1024)
                    default: break
                    }
                }
                if current.head == nil { forwardedBeforeHead += used }
            }
            rest = rest.dropFirst(used)
        }
        return completed
    }

    /// A chunk that starts no readable message: its size, and its first bytes with the unprintable ones as dots.
    static func counted(_ data: ArraySlice<UInt8>) -> Description {
        let printable = data.prefix(48).map { (32..<127).contains($0) ? Character(UnicodeScalar($0)) : "." }
        return Description(summary: "\(data.count) bytes", length: data.count, preview: String(printable) + (data.count > 48 ? "..." : ""))
    }
}
