import Testing

@testable import LoopbackTLS

/// A message as sent: in pieces, so a long generated body is never held whole.
@Suite struct HTTPMessageTests {
    @Test func aGeneratedBodyIsSentInPiecesNoneLongerThanAsked() throws {
        let response = HTTPMessage.response(200, "OK", repeating: UInt8(ascii: "x"), count: 200_000, contentType: "application/octet-stream")
        var pieces: [[UInt8]] = []
        response.serialize(inPiecesOf: 1 << 16) { pieces.append($0) }
        #expect(pieces.allSatisfy { $0.count <= 1 << 16 } && pieces.count == 4)
        let sent = pieces.flatMap { $0 }
        #expect(sent.count == response.serializedCount)
        let framing = HTTPFraming(role: .response, longestBody: 1 << 20)
        let read = try framing.feed(sent[...])
        #expect(read.used == sent.count && framing.isComplete)
        #expect(framing.body == Array(repeating: UInt8(ascii: "x"), count: 200_000))
        #expect(response.body.isEmpty, "the response holds no body of its own")
    }

    @Test func aSmallMessageIsOnePieceAsItWasAlwaysSent() {
        let request = HTTPMessage.request("POST", "/login", host: "bank.test", body: Array("password=hunter2".utf8))
        var pieces: [[UInt8]] = []
        request.serialize(inPiecesOf: 1 << 16) { pieces.append($0) }
        #expect(pieces == [request.serialized])
        #expect(String(decoding: request.serialized, as: UTF8.self).hasSuffix("Content-Length: 16\r\nConnection: close\r\n\r\npassword=hunter2"))
    }
}
