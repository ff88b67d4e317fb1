internal import COpenSSL
import PKI

/// Reads the fields of TLS handshake messages that a learner looks for (RFC 8446 §4, RFC 5246 §7.4).
///
/// Only what the transcript shows is parsed; anything malformed degrades to less detail, never a crash.
struct HandshakeParser {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    /// A whole handshake message (type, 24-bit length, body) as the message callback hands it over.
    static func message(_ raw: [UInt8], ssl: OpaquePointer, labels: (([UInt8]) -> String)) -> HandshakeMessage {
        guard let type = raw.first else { return .other(type: 0) }
        let body = HandshakeParser(raw.dropFirst(4))
        switch type {
        case 1:
            let hello = body.clientHello()
            return .clientHello(serverName: hello?.serverName, versions: hello?.versions.map(TLSVersion.name) ?? [])
        case 2:
            guard let hello = body.serverHello() else { return .serverHello(version: "?", cipher: "?") }
            if hello.isRetryRequest { return .helloRetryRequest }
            let cipher = hello.cipher.withUnsafeBufferPointer { SSL_CIPHER_find(ssl, $0.baseAddress) }
            return .serverHello(version: TLSVersion.name(wire: hello.version), cipher: cipher.map { String(cString: SSL_CIPHER_standard_name($0)) } ?? "?")
        case 4: return .newSessionTicket
        case 8: return .encryptedExtensions
        case 11: return .certificate(chain: body.certificates(tls13: SSL_version(ssl) == TLS1_3_VERSION).map(labels))
        case 12: return .serverKeyExchange
        case 13: return .certificateRequest
        case 14: return .serverHelloDone
        case 15: return .certificateVerify
        case 16: return .clientKeyExchange
        case 20: return .finished
        default: return .other(type: type)
        }
    }

    /// A ClientHello at the start of a raw TLS stream (record header first), as a passthrough proxy sees it.
    static func clientHello(record: [UInt8]) -> ClientHello? {
        guard record.count >= 9, record[0] == 22, record[5] == 1 else { return nil }
        return HandshakeParser(record.dropFirst(9)).clientHello()
    }

    /// How many bytes the first TLS record needs, once its 5-byte header has arrived.
    static func recordLength(_ bytes: [UInt8]) -> Int? {
        bytes.count >= 5 ? 5 + Int(bytes[3]) << 8 + Int(bytes[4]) : nil
    }

    /// The body of an ALPN extension (RFC 7301 §3.1): the protocols a client offers, e.g. ["h2", "http/1.1"].
    static func protocolNames(_ extensionData: ArraySlice<UInt8>) -> [String] {
        var reader = HandshakeParser(extensionData)
        guard var list = reader.vector(2).map(HandshakeParser.init) else { return [] }
        var names: [String] = []
        while let name = list.vector(1) { names.append(String(decoding: name, as: UTF8.self)) }
        return names
    }

    // MARK: - Messages

    /// What a ClientHello says about the client: the server name it wants (SNI), the TLS versions it
    /// offers, and the application protocols it offers (ALPN).
    struct ClientHello {
        var serverName: String?
        var versions: [UInt16]
        var protocols: [String] = []
    }

    func clientHello() -> ClientHello? {
        var reader = self
        guard let legacy = reader.uint16(), reader.skip(32), reader.skipVector(1), reader.skipVector(2), reader.skipVector(1) else { return nil }
        var hello = ClientHello(serverName: nil, versions: [legacy])
        reader.extensions { type, data in
            var field = HandshakeParser(data)
            if type == 0, field.skip(2), field.skip(1), let name = field.vector(2) {
                hello.serverName = String(decoding: name, as: UTF8.self)
            } else if type == 43, let list = field.vector(1) {
                hello.versions = stride(from: list.startIndex, to: list.endIndex - 1, by: 2).map { UInt16(list[$0]) << 8 | UInt16(list[$0 + 1]) }
            } else if type == 16 {
                hello.protocols = Self.protocolNames(data)
            }
        }
        return hello
    }

    /// RFC 8446 §4.1.3: a ServerHello with this random is a HelloRetryRequest.
    private static let retryRandom: [UInt8] = [
        0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
        0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
    ]

    func serverHello() -> (version: UInt16, cipher: [UInt8], isRetryRequest: Bool)? {
        var reader = self
        guard let legacy = reader.uint16(), let random = reader.take(32), reader.skipVector(1), let cipher = reader.take(2), reader.skip(1) else { return nil }
        var version = legacy
        reader.extensions { type, data in
            var field = HandshakeParser(data)
            if type == 43, let selected = field.uint16() { version = selected }
        }
        return (version, Array(cipher), Array(random) == Self.retryRandom)
    }

    /// The DER certificates of a Certificate message, leaf first.
    func certificates(tls13: Bool) -> [[UInt8]] {
        var reader = self
        if tls13 { guard reader.skipVector(1) else { return [] } }
        guard var list = reader.vector(3).map(HandshakeParser.init) else { return [] }
        var certificates: [[UInt8]] = []
        while let der = list.vector(3) {
            certificates.append(Array(der))
            if tls13 { guard list.skipVector(2) else { break } }
        }
        return certificates
    }

    // MARK: - Reading

    private mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard bytes.count >= count else { return nil }
        defer { bytes = bytes.dropFirst(count) }
        return bytes.prefix(count)
    }

    private mutating func skip(_ count: Int) -> Bool { take(count) != nil }

    private mutating func length(_ size: Int) -> Int? {
        take(size).map { $0.reduce(0) { $0 << 8 | Int($1) } }
    }

    private mutating func uint16() -> UInt16? { length(2).map(UInt16.init) }

    private mutating func vector(_ lengthSize: Int) -> ArraySlice<UInt8>? {
        guard let count = length(lengthSize) else { return nil }
        return take(count)
    }

    private mutating func skipVector(_ lengthSize: Int) -> Bool { vector(lengthSize) != nil }

    private mutating func extensions(_ visit: (UInt16, ArraySlice<UInt8>) -> Void) {
        guard var list = vector(2).map(HandshakeParser.init) else { return }
        while let type = list.uint16(), let data = list.vector(2) { visit(type, data) }
    }
}
