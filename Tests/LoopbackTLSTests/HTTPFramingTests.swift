import TestSupport
import Testing

@testable import LoopbackTLS

/// The one HTTP framing: llhttp's verdicts, our bounds, and properties over many generated inputs.
@Suite struct HTTPFramingTests {
    /// A seeded generator (SplitMix64), so every run makes the same inputs and a failure names one.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// What a message reads as: its head, its body, whether it ended, and how many bytes it took.
    struct Reading: Equatable {
        var head: HTTPFraming.Head?
        var body: [UInt8] = []
        var ended = false
        var used = 0
        var error: HTTPError?
    }

    /// Feeds `bytes` in pieces cut at `cuts`, then the end of the stream.
    static func read(_ bytes: [UInt8], role: HTTPFraming.Role, cuts: [Int] = [], longestBody: Int = 1 << 20) -> Reading {
        let framing = HTTPFraming(role: role, longestBody: longestBody)
        var reading = Reading()
        let bounds = [0] + cuts.filter { $0 > 0 && $0 < bytes.count }.sorted() + [bytes.count]
        do {
            for (start, end) in zip(bounds, bounds.dropFirst()) where start < end && !framing.isComplete {
                let (parts, used) = try framing.feed(bytes[start..<end])
                reading.used += used
                for part in parts {
                    switch part {
                    case .head(let head): reading.head = head
                    case .body(let chunk): reading.body += chunk
                    case .end: reading.ended = true
                    }
                }
            }
            if !framing.isComplete, try framing.finish().contains(.end) { reading.ended = true }
        } catch {
            reading.error = error
        }
        return reading
    }

    static let messages: [(HTTPFraming.Role, String)] = [
        (.request, "POST /login HTTP/1.1\r\nHost: bank.test\r\nContent-Length: 31\r\n\r\nusername=alice&password=hunter2"),
        (.request, "GET / HTTP/1.0\r\n\r\n"),
        (.request, "\r\nPOST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"),
        (.response, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"),
        (.response, "HTTP/1.1 200 Fine Thanks\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"),
        (.response, "HTTP/1.1 200 OK\r\n\r\nuntil the end of the stream"),
        (.response, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"),
    ]

    @Test func aValidMessageReadsTheSameHoweverItIsCut() {
        var generator = Seeded(state: 19)
        for (role, text) in Self.messages {
            let bytes = Array(text.utf8)
            let whole = Self.read(bytes, role: role)
            #expect(whole.error == nil && whole.ended && whole.head != nil, "\(text.debugDescription)")
            for _ in 0..<200 {
                let cuts = (0..<Int.random(in: 1...6, using: &generator)).map { _ in Int.random(in: 0...bytes.count, using: &generator) }
                #expect(Self.read(bytes, role: role, cuts: cuts) == whole, "\(text.debugDescription) cut at \(cuts)")
            }
        }
    }

    @Test func theHeadKeepsTheStartLineAsSentAndTheBodyLosesItsChunking() throws {
        let response = Self.read(Array(Self.messages[4].1.utf8), role: .response)
        #expect(response.head?.startLine == "HTTP/1.1 200 Fine Thanks", "the reason phrase as sent, not the standard one")
        #expect(response.head?.bodyLength == nil)
        #expect(response.body == Array("abc".utf8))
        let request = Self.read(Array(Self.messages[2].1.utf8), role: .request)
        #expect(request.head?.startLine == "POST /x HTTP/1.1")
        #expect(request.head?.length == Self.messages[2].1.utf8.count - "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n".utf8.count)
        #expect(request.body == Array("hello world".utf8))
    }

    @Test func aMessageEndsWhereItsContentLengthSaysAndWhatFollowsIsNotUsed() {
        let reading = Self.read(Array("GET / HTTP/1.1\r\nContent-Length: 2\r\n\r\nokGET / HTTP/1.1\r\n\r\n".utf8), role: .request)
        #expect(reading.ended && reading.body == Array("ok".utf8))
        #expect(reading.used == "GET / HTTP/1.1\r\nContent-Length: 2\r\n\r\nok".utf8.count)
    }

    @Test(arguments: ["-1", "+5", "5, 6", "0x10", "99999999999999999999", "5\r\nContent-Length: 6"])
    func aContentLengthThatIsNotOneNumberIsRefused(_ value: String) {
        let reading = Self.read(Array("POST / HTTP/1.1\r\nContent-Length: \(value)\r\n\r\nhello".utf8), role: .request)
        #expect(reading.error == .malformed("an invalid Content-Length"), "\(value)")
    }

    @Test func aBodyOverTheLimitIsRefusedWhenItIsAnnouncedOrWhenItArrives() {
        let announced = Self.read(Array("POST / HTTP/1.1\r\nContent-Length: 9223372036854775807\r\n\r\n".utf8), role: .request, longestBody: 4)
        #expect(announced.error == .bodyTooLong(declared: 9_223_372_036_854_775_807, limit: 4))
        let chunked = Self.read(Array("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n".utf8), role: .request, longestBody: 4)
        #expect(chunked.error == .bodyTooLong(declared: nil, limit: 4))
    }

    @Test func aHeadOverTheLimitIsRefusedBeforeItsEnd() {
        let head = "GET / HTTP/1.1\r\nX-Padding: " + String(repeating: "a", count: HTTPFraming.longestHead)
        #expect(Self.read(Array(head.utf8), role: .request).error == .headTooLong(HTTPFraming.longestHead))
    }

    @Test func aStreamCutShortIsAnErrorAndAnEmptyOneIsNoMessage() {
        #expect(Self.read(Array("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhel".utf8), role: .request).error != nil)
        #expect(Self.read(Array("GET / HT".utf8), role: .request).error != nil)
        #expect(Self.read([], role: .request) == Reading())
    }

    /// Random bytes, and valid messages with bytes changed, dropped or repeated, in random pieces: every one reads
    /// as a message or an `HTTPError`, and none traps.
    @Test func anyBytesInAnyPiecesReadOrAreRefusedWithoutATrap() {
        var generator = Seeded(state: 12)
        let alphabet = Array("GET POST HTTP/1.1 \r\n:0123456789-+ Content-Length Transfer-Encoding chunked\t\u{0}".utf8) + [0x1B, 0x7F, 0x9B, 0xFF]
        var outcomes = (read: 0, refused: 0)
        for input in 0..<Soak.size(1_000, long: 3_000) {
            var bytes = Array(Self.messages[input % Self.messages.count].1.utf8)
            for _ in 0..<Int.random(in: 0...4, using: &generator) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[at] = alphabet.randomElement(using: &generator) ?? 0
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(contentsOf: bytes[at...].prefix(8), at: at)
                default: bytes = (0..<Int.random(in: 0...300, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
                }
            }
            let cuts = (0..<3).map { _ in Int.random(in: 0...max(1, bytes.count), using: &generator) }
            for role in [HTTPFraming.Role.request, .response] {
                let whole = Self.read(bytes, role: role, longestBody: 64)
                if whole.error == nil { outcomes.read += 1 } else { outcomes.refused += 1 }
                // However the bytes arrive, they are refused alike, or read as the same message (a refused one may have
                // delivered part of its body first, when it came in pieces).
                let cut = Self.read(bytes, role: role, cuts: cuts, longestBody: 64)
                #expect((cut.error == nil) == (whole.error == nil), "input \(input), \(role): \(bytes)")
                if whole.error == nil {
                    #expect(cut.head == whole.head && cut.body == whole.body && cut.ended == whole.ended, "input \(input), \(role): \(bytes)")
                }
                // The relay's description of any bytes never traps.
                _ = RelayedMessages(role: role).describe(bytes[...])
            }
        }
        #expect(outcomes.read > 0 && outcomes.refused > 0)
    }
}
