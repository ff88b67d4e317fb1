import Testing

@testable import LoopbackTLS

extension NetworkTests {
    /// What the relay announces for a chunk it forwards: the message it starts, and how long all of it is.
    @Suite struct RelayDescriptionTests {
        static func describe(_ text: String, role: HTTPFraming.Role = .request) -> RelayedMessages.Description? {
            RelayedMessages(role: role).describe(Array(text.utf8)[...])
        }

        @Test func aResponseIsAsLongAsItsHeadPlusItsContentLengthWhateverTheHeadersCase() {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nCONTENT-LENGTH:  5 \r\n\r\n"
            let described = Self.describe(head + "hello", role: .response)
            #expect(described?.summary == "HTTP response 200 OK")
            #expect(described?.length == head.utf8.count + 5)
            #expect(described?.preview == "HTTP/1.1 200 OK | hello")
        }

        @Test func aBodyAnnouncedBeyondTheFirstKilobyteIsNotShownAndTheRestIsNotAnnouncedAgain() {
            let head = "POST /login HTTP/1.1\r\ncontent-length: 4096\r\n\r\n"
            let relayed = RelayedMessages(role: .request)
            let described = relayed.describe(Array((head + "user=al").utf8)[...])
            #expect(described?.summary == "HTTP request POST /login")
            #expect(described?.length == head.utf8.count + 4096)
            #expect(described?.preview == "POST /login HTTP/1.1")
            #expect(relayed.describe(Array(repeating: UInt8(ascii: "x"), count: 4089)[...]) == nil)
            #expect(relayed.describe(Array("GET / HTTP/1.1\r\n\r\n".utf8)[...])?.summary == "HTTP request GET /", "the next message is announced")
        }

        @Test func aHeadWithoutContentLengthIsTheWholeMessage() {
            let head = "GET / HTTP/1.1\r\nHost: bank.test\r\nX-Content-Length: 99\r\n\r\n"
            #expect(Self.describe(head)?.length == head.utf8.count)
        }

        @Test func aRequestWithoutHeaderLinesIsARequest() {
            #expect(Self.describe("GET / HTTP/1.0\r\n\r\n") == .init(summary: "HTTP request GET /", length: 18, preview: "GET / HTTP/1.0"))
        }

        @Test(arguments: ["-1", "+5", "9223372036854775807", "99999999999999999999", "5, 6"])
        func aContentLengthThatIsNoLengthTheRelayCanAnnounceIsCountedAsBytes(_ length: String) {
            let message = "POST /login HTTP/1.1\r\nContent-Length: \(length)\r\n\r\nx"
            #expect(Self.describe(message) == RelayedMessages.counted(Array(message.utf8)[...]))
        }

        @Test func bytesThatAreNoHTTPAreCountedAndShownPrintable() {
            let described = RelayedMessages(role: .request).describe([0x17, 0x03, 0x03, 0x00, 0x41, 0x42][...])
            #expect(described == .init(summary: "6 bytes", length: 6, preview: "....AB"))
        }
    }
}
