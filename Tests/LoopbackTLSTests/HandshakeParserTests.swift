import Testing

@testable import LoopbackTLS

/// `HandshakeParser` on hand-built messages: the fields a transcript shows, and less detail (never a
/// crash) for anything malformed or cut short.
struct HandshakeParserTests {
    static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func u24(_ value: Int) -> [UInt8] { [UInt8(value >> 16 & 0xFF)] + u16(value) }
    static func vector16(_ bytes: [UInt8]) -> [UInt8] { u16(bytes.count) + bytes }

    /// A ClientHello body: version, random, session id, one cipher suite, null compression, extensions.
    static func clientHello(serverName: String?, versions: [UInt16], protocols: [String] = []) -> [UInt8] {
        var extensions: [UInt8] = []
        if !protocols.isEmpty {
            let list = protocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
            extensions += u16(16) + vector16(vector16(list))
        }
        if let serverName {
            let name = Array(serverName.utf8)
            let list = [0] + vector16(name)  // host_name entry
            extensions += u16(0) + vector16(vector16(list))
        }
        if !versions.isEmpty {
            let list = versions.flatMap { u16(Int($0)) }
            extensions += u16(43) + vector16([UInt8(list.count)] + list)
        }
        return u16(0x0303) + [UInt8](repeating: 7, count: 32) + [0] + vector16([0x13, 0x01]) + [1, 0] + vector16(extensions)
    }

    /// The same ClientHello as it starts a TLS stream: record header, then handshake header.
    static func record(_ body: [UInt8]) -> [UInt8] {
        let handshake = [1] + u24(body.count) + body
        return [22, 3, 1] + u16(handshake.count) + handshake
    }

    @Test func aClientHelloGivesItsServerNameAndOfferedVersions() throws {
        let hello = try #require(HandshakeParser(Self.clientHello(serverName: "bank.test", versions: [0x0304, 0x0303])[...]).clientHello())
        #expect(hello.serverName == "bank.test")
        #expect(hello.versions == [0x0304, 0x0303])
    }

    @Test func aClientHelloGivesTheApplicationProtocolsItOffers() throws {
        let body = Self.clientHello(serverName: "bank.test", versions: [0x0304], protocols: ["h2", "http/1.1"])
        #expect(HandshakeParser.clientHello(record: Self.record(body))?.protocols == ["h2", "http/1.1"])
        #expect(HandshakeParser(Self.clientHello(serverName: nil, versions: [])[...]).clientHello()?.protocols == [])
        #expect(HandshakeParser.protocolNames([0, 3, 2, 0x68, 0x32][...]) == ["h2"])
        #expect(HandshakeParser.protocolNames([0, 5, 2, 0x68, 0x32][...]) == [], "a list cut short gives nothing, never a crash")
    }

    @Test func withoutExtensionsAClientHelloOffersOnlyItsLegacyVersionAndNoName() throws {
        let hello = try #require(HandshakeParser(Self.clientHello(serverName: nil, versions: [])[...]).clientHello())
        #expect(hello.serverName == nil)
        #expect(hello.versions == [0x0303])
    }

    @Test func aPassthroughProxyReadsTheClientHelloFromTheRawStream() throws {
        let hello = try #require(HandshakeParser.clientHello(record: Self.record(Self.clientHello(serverName: "bank.test", versions: [0x0304]))))
        #expect(hello.serverName == "bank.test")
        #expect(HandshakeParser.clientHello(record: [23, 3, 3, 0, 1, 0, 0, 0, 0]) == nil, "application data is no ClientHello")
        #expect(HandshakeParser.clientHello(record: [22, 3, 1]) == nil, "a header cut short")
    }

    @Test func aClientHelloCutAnywhereBeforeItsExtensionsIsNil() {
        let body = Self.clientHello(serverName: "bank.test", versions: [0x0304])
        let extensionsStart = 2 + 32 + 1 + 4 + 2
        for length in 0..<extensionsStart {
            #expect(HandshakeParser(body.prefix(length)).clientHello() == nil, "cut at \(length)")
        }
    }

    @Test func aClientHelloCutInsideItsExtensionsYieldsItsFixedFieldsButNoNameAndNeverCrashes() {
        let body = Self.clientHello(serverName: "bank.test", versions: [0x0304])
        // The extension list is one length-prefixed vector: until all of it is in, none of it is read.
        for length in (2 + 32 + 1 + 4 + 2)...body.count {
            let hello = HandshakeParser(body.prefix(length)).clientHello()
            #expect(hello != nil, "cut at \(length)")
            #expect(hello?.serverName == (length == body.count ? "bank.test" : nil), "cut at \(length)")
        }
        #expect(HandshakeParser(body[...]).clientHello()?.versions == [0x0304])
    }

    @Test func aLengthThatPromisesMoreThanFollowsYieldsNoName() throws {
        var body = Self.clientHello(serverName: "bank.test", versions: [])
        let nameLength = body.count - "bank.test".utf8.count - 2
        body[nameLength + 1] = 200  // the name's length, now longer than the message
        let hello = try #require(HandshakeParser(body[...]).clientHello())
        #expect(hello.serverName == nil)
    }

    @Test func aServerHelloGivesTheSelectedVersionAndCipherAndSpotsARetryRequest() throws {
        func serverHello(random: [UInt8], selected: Int?) -> [UInt8] {
            let extensions = selected.map { Self.u16(43) + Self.vector16(Self.u16($0)) } ?? []
            return Self.u16(0x0303) + random + [0] + [0x13, 0x02] + [0] + Self.vector16(extensions)
        }
        let plain = try #require(HandshakeParser(serverHello(random: [UInt8](repeating: 1, count: 32), selected: 0x0304)[...]).serverHello())
        #expect(plain.version == 0x0304 && plain.cipher == [0x13, 0x02] && !plain.isRetryRequest)

        let retryRandom: [UInt8] = [
            0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
            0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
        ]
        #expect(try #require(HandshakeParser(serverHello(random: retryRandom, selected: 0x0304)[...]).serverHello()).isRetryRequest)

        let tls12 = try #require(HandshakeParser(serverHello(random: [UInt8](repeating: 1, count: 32), selected: nil)[...]).serverHello())
        #expect(tls12.version == 0x0303)
        #expect(HandshakeParser(serverHello(random: [UInt8](repeating: 1, count: 32), selected: nil).prefix(36)).serverHello() == nil)
    }

    @Test func aCertificateMessageListsItsCertificatesLeafFirstInBothVersions() {
        let leaf: [UInt8] = [0x30, 1, 1]
        let issuer: [UInt8] = [0x30, 2, 2, 2]
        let tls12 = Self.u24(6 + leaf.count + issuer.count) + Self.u24(leaf.count) + leaf + Self.u24(issuer.count) + issuer
        #expect(HandshakeParser(tls12[...]).certificates(tls13: false) == [leaf, issuer])

        // TLS 1.3: a request context first, and extensions after each certificate.
        let entries = Self.u24(leaf.count) + leaf + Self.u16(0) + Self.u24(issuer.count) + issuer + Self.u16(0)
        let tls13 = [0] + Self.u24(entries.count) + entries
        #expect(HandshakeParser(tls13[...]).certificates(tls13: true) == [leaf, issuer])
    }

    @Test func aTruncatedCertificateMessageKeepsTheWholeCertificatesBeforeTheCut() {
        let leaf: [UInt8] = [0x30, 1, 1]
        let issuer: [UInt8] = [0x30, 2, 2, 2]
        let list = Self.u24(leaf.count) + leaf + Self.u24(issuer.count) + issuer
        let cut = Self.u24(list.count - 2) + list.dropLast(2)
        #expect(HandshakeParser(cut[...]).certificates(tls13: false) == [leaf])
        #expect(HandshakeParser([0, 0][...]).certificates(tls13: false).isEmpty)
        #expect(HandshakeParser([][...]).certificates(tls13: true).isEmpty)
    }

    @Test func theFirstRecordsLengthIsKnownOnceItsHeaderHasArrived() {
        #expect(HandshakeParser.recordLength([22, 3, 1, 0x01]) == nil)
        #expect(HandshakeParser.recordLength([22, 3, 1, 0x01, 0x02]) == 5 + 258)
        #expect(HandshakeParser.recordLength([23, 3, 3, 0, 0, 9, 9]) == 5)
    }
}
