import Foundation
import Testing

@testable import LoopbackTLS

/// The relay's own trimming gives what Foundation's `trimmingCharacters(in:)` gives, for both sets it replaces.
@Suite struct WhiteSpaceTrimmingTests {
    /// Every White_Space scalar, the zero-width space (which Foundation trims too), a BOM and a combining mark (which
    /// it keeps), letters and control characters.
    static let pool: [Unicode.Scalar] =
        (0...0x3000).compactMap(Unicode.Scalar.init).filter(\.properties.isWhitespace)
        + ["a", "Z", "=", "\u{0}", "\u{7}", "\u{1B}", "\u{7F}", "\u{200B}", "\u{FEFF}", "\u{301}", "é", "😀"]

    @Test func trimmingAgreesWithFoundationOnEveryWhiteSpaceScalarAtEitherEnd() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<12 {
            for _ in 0..<400 {
                var text = String.UnicodeScalarView()
                for _ in 0..<length { text.append(Self.pool.randomElement(using: &generator) ?? "a") }
                let string = String(text)
                #expect(string.trimmingWhiteSpace() == string.trimmingCharacters(in: .whitespacesAndNewlines), "\(string.debugDescription)")
                #expect(
                    string.trimmingWhiteSpace(includingLineBreaks: false) == string.trimmingCharacters(in: .whitespaces), "\(string.debugDescription)")
            }
        }
    }

    @Test func aPreviewShowsTheBodyWithoutItsSurroundingBlankLines() throws {
        let framing = HTTPFraming(role: .request, longestBody: 1 << 10)
        let sent = Array("POST /login HTTP/1.1\r\nHost: bank.test\r\nContent-Length: 33\r\n\r\n\r\n username=alice&password=x \r\n\t".utf8)
        _ = try framing.feed(sent[...])
        let head = try #require(framing.head)
        #expect(Interception.preview(head, body: framing.body[...]) == "POST /login HTTP/1.1 | username=alice&password=x")
    }
}
