/// Reading whole heads and messages from a connection, within a deadline.
extension HTTPFraming {
    /// The deadline for a message whose reading starts now.
    static var deadlineFromNow: ContinuousClock.Instant { .now + deadline }

    /// Reads a head straight from `socket`, consuming nothing after it: after a CONNECT, TLS follows on the same
    /// socket, and OpenSSL reads it from there. Nil when the peer closed before sending anything.
    func readHead(from socket: Socket, before deadline: ContinuousClock.Instant) throws -> Head? {
        while head == nil {
            try socket.wait(forWriting: false, before: deadline)
            let waiting = try socket.peek(upTo: Self.longestHead + 1)
            guard !waiting.isEmpty else {
                guard hasStarted else { return nil }
                throw HTTPError.malformed("the stream ended before the head did")
            }
            let used = try feed(waiting[...], headOnly: true).used
            // What was peeked is there to be read: this takes exactly what the head used.
            _ = try socket.read(upTo: used)
        }
        return head
    }

    /// Reads through `read` (which returns empty at the end of the stream) until the message ends, after what
    /// was fed already. Nil when the stream ended before a head; bytes after the message's end are dropped, as
    /// every connection here carries one message each way.
    func readMessage(from read: () throws -> [UInt8]) throws -> HTTPMessage? {
        while !isComplete {
            let chunk = try read()
            guard !chunk.isEmpty else {
                if head == nil { return nil }
                _ = try finish()
                break
            }
            _ = try feed(chunk[...])
        }
        return message
    }

    /// The message read, once its head was: its body as far as kept, without the headers that framed it (a
    /// message is serialized with its own).
    var message: HTTPMessage? {
        let framingHeaders = ["content-length:", "connection:", "transfer-encoding:"]
        return head.map { head in
            HTTPMessage(
                startLine: head.startLine, headers: head.headers.filter { line in !framingHeaders.contains { line.lowercased().hasPrefix($0) } },
                body: body)
        }
    }
}
