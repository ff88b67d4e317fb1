/// Everything mitmsim reads of HTTP from outside, for libFuzzer (`MITMSIM_FUZZ=http`, Docs/fuzzing.md): the framing
/// in both roles, whole and cut in two, the TLS relay's description, and what the proxy still parses by hand (a
/// CONNECT target, a plain request's destination). Any input must come back; a trap, or a message that reads
/// differently when cut, is a finding.
package enum HTTPFuzzing {
    package static func read(_ bytes: [UInt8]) {
        // The first byte chooses where the input is cut, so the fuzzer explores cuts too.
        let cut = bytes.first.map { Int($0) % (bytes.count + 1) } ?? 0
        for role in [HTTPFraming.Role.request, .response] {
            let whole = reading(bytes, role: role, cuts: [])
            let pieces = reading(bytes, role: role, cuts: [cut])
            guard whole == pieces else { fatalError("read whole as \(String(describing: whole)), cut at \(cut) as \(String(describing: pieces))") }
            _ = RelayedMessages(role: role).describe(bytes[...])
            _ = RelayedMessages(role: role).describe(bytes[cut...])
            if role == .request, let message = whole {
                let parts = message.startLine.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
                if parts.count == 3 {
                    _ = Interception.connectHost(parts[1])
                    _ = Interception.plainHTTPDestination(of: parts, host: message.header("Host"))
                }
            }
        }
        _ = HTTPMessage.first(in: bytes)
    }

    /// The message `bytes` hold, fed in pieces cut at `cuts`; nil when refused.
    private static func reading(_ bytes: [UInt8], role: HTTPFraming.Role, cuts: [Int]) -> HTTPMessage? {
        let framing = HTTPFraming(role: role, longestBody: 1 << 16)
        var start = 0
        do {
            for end in cuts + [bytes.count] where !framing.isComplete {
                _ = try framing.feed(bytes[start..<end])
                start = end
            }
            _ = try framing.finish()
        } catch {
            return nil
        }
        return framing.message
    }
}
