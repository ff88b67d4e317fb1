import Testing

@testable import LoopbackTLS

extension NetworkTests {
    /// What the relay announces for a chunk it forwards: the message it starts, and how long all of it is.
    @Suite struct RelayDescriptionTests {
        static func describe(_ text: String) -> (summary: String, length: Int, preview: String) {
            Interception.describe(Array(text.utf8)[...])
        }

        @Test func aResponseIsAsLongAsItsHeadPlusItsContentLengthWhateverTheHeadersCase() {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nCONTENT-LENGTH:  5 \r\n\r\n"
            let described = Self.describe(head + "hello")
            #expect(described.summary == "HTTP response 200 OK")
            #expect(described.length == head.utf8.count + 5)
            #expect(described.preview == "HTTP/1.1 200 OK | hello")
        }

        @Test func theFirstContentLengthThatIsANumberCounts() {
            let head = "POST /login HTTP/1.1\r\nContent-Length: soon\r\ncontent-length: 4096\r\nContent-Length: 7\r\n\r\n"
            let described = Self.describe(head + "user=al")
            #expect(described.summary == "HTTP request POST /login")
            #expect(described.length == head.utf8.count + 4096)
            #expect(described.preview == "POST /login HTTP/1.1", "a body announced beyond the first kilobyte is not shown")
        }

        @Test func aHeadWithoutContentLengthIsTheWholeMessage() {
            let head = "GET / HTTP/1.1\r\nHost: bank.test\r\nX-Content-Length: 99\r\n\r\n"
            #expect(Self.describe(head).length == head.utf8.count)
        }

        @Test func bytesThatAreNoHTTPAreCountedAndShownPrintable() {
            let described = Interception.describe([0x17, 0x03, 0x03, 0x00, 0x41, 0x42][...])
            #expect(described.summary == "6 bytes")
            #expect(described.length == 6)
            #expect(described.preview == "....AB")
        }
    }
}
