internal import COpenSSL
import Foundation
import PKI

/// One end of a TLS connection (OpenSSL `SSL` over a loopback `Socket`), reporting into an `EventStream`.
///
/// OpenSSL's message callback reports every handshake message, alert and ChangeCipherSpec: the ones
/// this end sends become events, the ones it receives are counted so the merged log keeps cause before
/// effect. Application data is reported by `write(_:summary:)` and counted by `read()`.
final class TLSConnection {
    enum HandshakeResult: Equatable {
        case completed
        /// The proxy's ClientHello pause: choose a certificate, then call `handshake()` again.
        case pausedAtClientHello
        case failed(String)
    }

    let ssl: OpaquePointer
    let socket: Socket
    let stream: EventStream
    private let isConnector: Bool
    /// Resolved at first use, not at accept: a passthrough proxy registers the connection it relays
    /// only after connecting, and before it forwards the first byte.
    private lazy var connection = stream.eventLog.connection(of: socket, isConnector: isConnector)

    /// Client side: rules on the chain the server presented (leaf first), knowing what the handshake settled.
    var judge: (([Certificate], NegotiatedTLS) -> JudgeAnswer)?

    /// What the client's judge answered, and so which alert a refusal sends.
    enum JudgeAnswer: Equatable {
        case accept
        /// `bad_certificate`, as cancelling the server-trust challenge sends.
        case refuseChain
        /// `protocol_version`: the negotiated version is below the client's floor.
        case refuseVersion
    }
    /// Server side: set once `SSL_use_certificate` was called for this connection.
    var hasServerCertificate = false
    /// Client side, on a context that hands new sessions to connections: gets each session the server issues.
    var onNewSession: ((TLSSession) -> Void)?

    private(set) var receivedAlert: String?
    /// Whether this end sent its Certificate message: only then can the peer have judged (and refused) it.
    private(set) var sentCertificate = false
    /// The peer asked this end for a certificate (a CertificateRequest arrived).
    private(set) var certificateRequested = false
    private var sentAlert: (name: String, reason: String?)?
    private var judgeRejected = false
    /// The judge refused the negotiated version: the handshake waits (`SSL_set_retry_verify`) for `refuseVersion()`.
    private var versionRefused: TLSVersion?
    /// For `read()` only: the proxy's relay reads into a buffer of its own, and never pays for this one.
    private lazy var readBuffer = [UInt8](repeating: 0, count: 16_384)
    private var relaying = false
    /// Set during a step that only sends (`handshakeStep(sendingOnly:)`): OpenSSL's reads report that they would block.
    private var holdsReads = false

    static let index: Int32 = {
        let slot = COpenSSL_SSL_get_ex_new_index()
        // Allocating an index only fails when OpenSSL is out of memory.
        precondition(slot >= 0, "SSL_get_ex_new_index failed: out of memory")
        return slot
    }()

    /// - Parameter peer: who is at the other end, when the caller knows (the proxy does; a client does not).
    init(
        context: TLSContext, socket: Socket, stream: EventStream, isConnector: Bool, serverName: String? = nil,
        peer: NetworkEvent.Actor? = nil
    ) throws {
        guard let ssl = OpenSSL.isolatingErrors({ SSL_new(context.context) }) else { throw NetworkError.tls(operation: "SSL_new", details: []) }
        self.ssl = ssl
        self.socket = socket
        self.stream = stream
        self.isConnector = isConnector
        if let peer {
            for unit in [Channel.Unit.records, .bytes] { stream.eventLog.noteIntendedReceiver(peer, of: channel(outgoing: true, unit)) }
        }
        try OpenSSL.isolatingErrors {
            try Self.require(SSL_set_fd(ssl, socket.descriptor) == 1, "SSL_set_fd")
            Self.boundReads(of: ssl, by: self)
            // Unretained is safe: the SSL is freed in this object's deinit and only driven by its methods,
            // so OpenSSL cannot call back (and read this pointer) once the object is gone.
            try Self.require(SSL_set_ex_data(ssl, Self.index, Unmanaged.passUnretained(self).toOpaque()) == 1, "SSL_set_ex_data")
            if let serverName {
                let set = serverName.withCString {
                    SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0))
                }
                try Self.require(set == 1, "SSL_set_tlsext_host_name(\(serverName))")
            }
        }
        SSL_set_msg_callback(ssl) { writing, _, contentType, buffer, length, ssl, _ in
            guard let ssl, let buffer, let connection = TLSConnection.from(ssl) else { return }
            connection.observe(sent: writing == 1, contentType: contentType, bytes: UnsafeRawBufferPointer(start: buffer, count: length))
        }
    }

    deinit { SSL_free(ssl) }

    /// How long a handshake may take in all, however slowly the peer sends it (the socket's receive timeout
    /// bounds only each read): whoever handshakes with a peer sets `socket.deadline` to now plus this.
    static let handshakeDeadline: Duration = .seconds(10)

    /// Makes every read OpenSSL does on `ssl`'s socket ask `socket.prepareRead()` first, so that the socket's
    /// `deadline` bounds a whole handshake; past it, the read fails as a timeout. While `holdsReads` is set, a read
    /// is not made at all and reports that it would block.
    private static func boundReads(of ssl: OpaquePointer, by connection: TLSConnection) {
        let bio = SSL_get_rbio(ssl)
        // Unretained is safe: the connection frees the SSL (and its BIO) in its deinit.
        BIO_set_callback_arg(bio, Unmanaged.passUnretained(connection).toOpaque().assumingMemoryBound(to: CChar.self))
        BIO_set_callback_ex(bio) { bio, operation, _, _, _, _, result, _ in
            guard operation == BIO_CB_READ, let bio, let raw = BIO_get_callback_arg(bio) else { return Int(result) }
            let connection = Unmanaged<TLSConnection>.fromOpaque(raw).takeUnretainedValue()
            if connection.holdsReads {
                // A non-positive result cancels the read; with these flags OpenSSL reports SSL_ERROR_WANT_READ.
                BIO_set_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY)
                return -1
            }
            do {
                try connection.socket.prepareRead()
                return Int(result)
            } catch {
                errno = EAGAIN  // a non-positive result cancels the read, which OpenSSL reports with errno
                return -1
            }
        }
    }

    private static func require(_ succeeded: Bool, _ operation: String) throws {
        guard succeeded else { throw NetworkError.tls(operation: operation, details: OpenSSL.drainErrors()) }
    }

    static func from(_ ssl: OpaquePointer) -> TLSConnection? {
        SSL_get_ex_data(ssl, index).map { Unmanaged<TLSConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    func channel(outgoing: Bool, _ unit: Channel.Unit) -> Channel {
        Channel(connection: connection, fromConnector: outgoing == isConnector, unit: unit)
    }

    // MARK: - Handshake

    /// Each OpenSSL call here runs in its own error scope (`OpenSSL.isolatingErrors`): SSL_get_error and
    /// the failure reason see only that call's errors, and nothing it queued outlives it.
    func handshake() -> HandshakeResult {
        switch handshakeStep() {
        case .done(let result): result
        // A blocking socket wants more only when its receive timeout (or the deadline) passed.
        case .wantsRead, .wantsWrite: .failed(failureReason(SSL_ERROR_WANT_READ))
        }
    }

    /// Where a handshake on a nonblocking socket stands after one step.
    enum HandshakeStep: Equatable {
        case done(HandshakeResult)
        /// It waits for its socket to be readable, or writable: call `handshakeStep()` again once it is.
        case wantsRead, wantsWrite
    }

    /// Advances the handshake as far as the socket allows without waiting (see `handshake()` for the error scope).
    ///
    /// - Parameter sendingOnly: write what this end can send now and read nothing, even what has already arrived:
    ///   the step stops at its first read as `.wantsRead`.
    func handshakeStep(sendingOnly: Bool = false) -> HandshakeStep {
        holdsReads = sendingOnly
        defer { holdsReads = false }
        return OpenSSL.isolatingErrors {
            let status = isConnector ? SSL_connect(ssl) : SSL_accept(ssl)
            if status == 1 { return .done(.completed) }
            switch SSL_get_error(ssl, status) {
            case SSL_ERROR_WANT_CLIENT_HELLO_CB: return .done(.pausedAtClientHello)
            case SSL_ERROR_WANT_RETRY_VERIFY:
                guard let versionRefused else { return .done(.failed(failureReason(SSL_ERROR_WANT_RETRY_VERIFY))) }
                return .done(refuseVersion(versionRefused))
            case SSL_ERROR_WANT_READ: return .wantsRead
            case SSL_ERROR_WANT_WRITE: return .wantsWrite
            case let error: return .done(.failed(failureReason(error)))
            }
        }
    }

    /// The version and suite the ServerHello settled, from the moment it was processed; nil before.
    ///
    /// A client processes the ServerHello (`tls_process_server_hello` in OpenSSL 3.0's statem_clnt.c) before the
    /// server's Certificate, whose chain it judges afterwards (`tls_post_process_server_certificate` calls
    /// `ssl_verify_cert_chain`, which calls the verify callback): by then `ssl_choose_client_version` has set the
    /// version and `set_client_ciphersuite` the pending suite. The session's suite (`SSL_get_current_cipher`) is
    /// set then in TLS 1.3 only (`tls13_setup_key_block`, for the handshake keys); up to TLS 1.2 it waits for
    /// the client's ClientKeyExchange, so the pending suite (`SSL_get_pending_cipher`) answers until then.
    var negotiated: NegotiatedTLS? {
        guard let version = TLSVersion(openSSLValue: Int(SSL_version(ssl))), let cipher = SSL_get_current_cipher(ssl) ?? SSL_get_pending_cipher(ssl)
        else { return nil }
        return NegotiatedTLS(version: version, cipherSuite: String(cString: SSL_CIPHER_standard_name(cipher)))
    }

    /// Records "handshake complete: TLS 1.3, TLS_AES_256_GCM_SHA384" on this end's stream.
    func recordCompletedHandshake() {
        // A completed handshake has settled both (see `negotiated`).
        let settled = negotiated
        stream.record(.handshakeCompleted(version: settled?.version.rawValue ?? "?", cipher: settled?.cipherSuite ?? "?"))
    }

    /// The server name the client asked for (SNI), once its ClientHello has been read.
    var requestedServerName: String? {
        var data: UnsafePointer<UInt8>? = nil
        var length = 0
        guard SSL_client_hello_get0_ext(ssl, UInt32(TLSEXT_TYPE_server_name), &data, &length) == 1, let data else {
            return SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
        }
        // server_name_list: length(2), then entries of type(1), length(2), name.
        let bytes = Array(UnsafeBufferPointer(start: data, count: length))
        guard bytes.count > 5, bytes[2] == 0 else { return nil }
        let nameLength = Int(bytes[3]) << 8 | Int(bytes[4])
        return bytes.count >= 5 + nameLength ? String(decoding: bytes[5..<5 + nameLength], as: UTF8.self) : nil
    }

    /// The application protocols the client offered (ALPN), once its ClientHello has been read.
    var offeredProtocols: [String] {
        var data: UnsafePointer<UInt8>? = nil
        var length = 0
        guard SSL_client_hello_get0_ext(ssl, UInt32(TLSEXT_TYPE_application_layer_protocol_negotiation), &data, &length) == 1, let data else { return [] }
        return HandshakeParser.protocolNames(Array(UnsafeBufferPointer(start: data, count: length))[...])
    }

    /// Presents `chain` (leaf first) with `key` on this server-side connection.
    func present(_ chain: [Certificate], key: PrivateKey) throws {
        guard let leaf = chain.first else { throw NetworkError.tls(operation: "SSL_use_certificate", details: ["no certificate to present"]) }
        try OpenSSL.isolatingErrors {
            try Self.require(SSL_use_certificate(ssl, leaf.x509) == 1, "SSL_use_certificate")
            try Self.require(SSL_use_PrivateKey(ssl, key.pkey) == 1, "SSL_use_PrivateKey")
            for certificate in chain.dropFirst() {
                try Self.require(SSL_ctrl(ssl, SSL_CTRL_CHAIN_CERT, 1, UnsafeMutableRawPointer(certificate.x509)) == 1, "SSL_add1_chain_cert")
            }
        }
        hasServerCertificate = true
    }

    /// The certificates the peer presented, leaf first, named by the run's labels.
    var peerChain: [Certificate] {
        guard let stack = SSL_get_peer_cert_chain(ssl) else { return [] }
        return (0..<OPENSSL_sk_num(stack)).compactMap { index in
            OPENSSL_sk_value(stack, index).flatMap { try? stream.eventLog.certificate(retaining: OpaquePointer($0)) }
        }
    }

    /// Client side, before the handshake: offers the server to resume `session` instead of a full handshake.
    func offer(_ session: TLSSession) {
        // Fails only for a session of another TLS method, which a client context never issues.
        _ = OpenSSL.isolatingErrors { SSL_set_session(ssl, session.session) }
    }

    /// Whether the handshake resumed an earlier session: the server then presented no certificate, and the peer
    /// certificate is the one the session holds, from the full handshake it came from.
    var resumed: Bool { SSL_session_reused(ssl) == 1 }

    /// Whether the peer presented a certificate (without parsing it, as `peerChain` does).
    var hasPeerCertificate: Bool { SSL_get0_peer_certificate(ssl) != nil }

    /// Whether the peer's leaf is `certificate`, compared by encoding without parsing the peer's.
    func presentedLeaf(is certificate: Certificate) -> Bool {
        SSL_get0_peer_certificate(ssl).map { X509_cmp($0, certificate.x509) == 0 } ?? false
    }

    /// Called from the verify callback with OpenSSL's store context; true accepts the chain, or, when the judge
    /// refused the version, suspends the handshake for `refuseVersion()`.
    func judgePresentedChain(_ store: OpaquePointer) -> Bool {
        var chain: [Certificate] = []
        if let stack = X509_STORE_CTX_get0_untrusted(store) {
            chain = (0..<OPENSSL_sk_num(stack)).compactMap { index in
                OPENSSL_sk_value(stack, index).flatMap { try? stream.eventLog.certificate(retaining: OpaquePointer($0)) }
            }
        }
        if chain.isEmpty, let leaf = X509_STORE_CTX_get0_cert(store) { chain = [try? stream.eventLog.certificate(retaining: leaf)].compactMap { $0 } }
        // The verify callback runs after the ServerHello (see `negotiated`): nil never reaches it, and a chain
        // nothing can be said about is refused.
        guard let negotiated, !chain.isEmpty else {
            judgeRejected = true
            return false
        }
        let answer = judge?(chain, negotiated) ?? .refuseChain
        judgeRejected = answer != .accept
        // OpenSSL would answer any refusal here with bad_certificate; a version refusal is sent by `refuseVersion()`.
        if answer == .refuseVersion, negotiated.version < .tls13, SSL_ctrl(ssl, SSL_CTRL_SET_RETRY_VERIFY, 0, nil) > 0 {
            versionRefused = negotiated.version
            return true
        }
        return answer == .accept
    }

    /// Ends a handshake the judge suspended for its version with a fatal `protocol_version` alert, the one a client
    /// sends when the ServerHello chose a version below its floor (OpenSSL's `ssl_choose_client_version`, RFC 8446
    /// appendix D). OpenSSL sends no alert of its own choice from the verify callback but the one its error maps
    /// to, so the record is written here: below TLS 1.3, before ChangeCipherSpec, a record is plaintext.
    private func refuseVersion(_ version: TLSVersion) -> HandshakeResult {
        let reason = "the client's judge refused \(version.rawValue)"
        let minor = UInt8(truncatingIfNeeded: version.openSSLValue)
        do {
            try socket.write([UInt8(SSL3_RT_ALERT), 3, minor, 0, 2, UInt8(SSL3_AL_FATAL), UInt8(SSL_AD_PROTOCOL_VERSION)])
        } catch {
            return .failed("\(reason), and the alert could not be sent: \(error)")
        }
        sentAlert = ("protocol_version", reason)
        stream.record(.alert(level: "fatal", name: "protocol_version", reason: reason), sent: (channel(outgoing: true, .records), 1))
        return .failed("sent alert protocol_version: \(reason)")
    }

    // MARK: - Data

    /// Sends application data; `summary` says what it is ("HTTP request POST /login").
    func write(_ bytes: ArraySlice<UInt8>, summary: String) throws {
        try write(bytes, announcing: (summary, bytes.count))
    }

    /// Sends application data. `message` announces what starts here and how long all of it is (one
    /// event for a whole message the relay forwards record by record); nil continues the last one.
    func write(_ bytes: ArraySlice<UInt8>, announcing message: (summary: String, length: Int)?) throws {
        if let message {
            stream.record(.applicationData(bytes: message.length, summary: message.summary), sent: (channel(outgoing: true, .bytes), message.length))
        }
        try OpenSSL.isolatingErrors {
            let written = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            guard written == bytes.count else { throw NetworkError.tls(operation: "SSL_write", details: [failureReason(SSL_get_error(ssl, written))]) }
        }
    }

    /// What is available (at most one TLS record); empty when the peer closed with close_notify.
    func read() throws -> [UInt8] {
        guard let count = try read(into: &readBuffer) else { throw NetworkError.tls(operation: "SSL_read", details: [Socket.reason(EAGAIN)]) }
        return Array(readBuffer[..<count])
    }

    /// What is available (at most one TLS record), waiting no later than `deadline`; empty when the peer closed
    /// with close_notify. The deadline bounds every read OpenSSL does meanwhile (see `boundReads`), so a peer
    /// that sends a record a byte at a time cannot hold OpenSSL inside one read past it.
    func read(before deadline: ContinuousClock.Instant) throws -> [UInt8] {
        try socket.reading(before: deadline) {
            while true {
                let outcome: (count: Int32, error: Int32) = OpenSSL.isolatingErrors {
                    let received = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
                    return (received, received > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl, received))
                }
                switch outcome.error {
                case SSL_ERROR_NONE:
                    stream.noteReceived(channel(outgoing: false, .bytes), Int(outcome.count))
                    return Array(readBuffer[..<Int(outcome.count)])
                case SSL_ERROR_ZERO_RETURN:
                    return []
                case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                    // A receive timeout short of the deadline, or a record without data while relaying. Past the
                    // deadline, a cancelled read can leave the last timeout's retry flag standing: stop here.
                    guard ContinuousClock.now < deadline else { throw HTTPError.tooSlow }
                case let error:
                    throw NetworkError.tls(operation: "SSL_read", details: [failureReason(error)])
                }
            }
        }
    }

    /// Reads at most one TLS record into `buffer` and returns its length; 0 when the peer closed with
    /// close_notify; nil when, in relay mode, a record carried no data (a session ticket). The relay
    /// uses this to forward without copying.
    func read(into buffer: inout [UInt8]) throws -> Int? {
        try OpenSSL.isolatingErrors {
            let received = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if received > 0 {
                stream.noteReceived(channel(outgoing: false, .bytes), Int(received))
                return Int(received)
            }
            let error = SSL_get_error(ssl, received)
            if error == SSL_ERROR_ZERO_RETURN { return 0 }
            if error == SSL_ERROR_WANT_READ, relaying { return nil }
            throw NetworkError.tls(operation: "SSL_read", details: [failureReason(error)])
        }
    }

    /// Relay mode: a read returns after a record without data instead of blocking for the next one.
    ///
    /// OpenSSL normally processes a session ticket or key update and then waits for application data;
    /// a relay that polled two sockets would hang there while the other side's data sits unread.
    func startRelaying() {
        // Returns the new mode, not a status: it cannot fail.
        SSL_ctrl(ssl, SSL_CTRL_CLEAR_MODE, Int(SSL_MODE_AUTO_RETRY), nil)
        relaying = true
    }

    /// Client side, after a completed handshake in which the server asked for a certificate and got none:
    /// the server's verdict on that, as a failure reason, or nil when it went on.
    ///
    /// TLS 1.2 judges the client's Certificate inside the handshake, so a completed one is the verdict.
    /// A TLS 1.3 server judges it after the client's Finished, and the verdict is the server's next record:
    /// an alert refuses; anything else (a session ticket, data) means it went on. With auto-retry off,
    /// SSL_peek returns after exactly that record, whichever it is, and leaves application data unread.
    /// No clock decides: only a server that accepts and then stays silent meets the socket's receive
    /// timeout, and the origin never does (it refuses a missing certificate with SSL_VERIFY_FAIL_IF_NO_PEER_CERT).
    func serverVerdictOnMissingCertificate() -> String? {
        guard SSL_version(ssl) == TLS1_3_VERSION else { return nil }
        return OpenSSL.isolatingErrors {
            // Both return the new mode, not a status: they cannot fail.
            SSL_ctrl(ssl, SSL_CTRL_CLEAR_MODE, Int(SSL_MODE_AUTO_RETRY), nil)
            defer { if !relaying { SSL_ctrl(ssl, SSL_CTRL_MODE, Int(SSL_MODE_AUTO_RETRY), nil) } }
            var byte: UInt8 = 0
            let peeked = SSL_peek(ssl, &byte, 1)
            if peeked > 0 { return nil }
            switch SSL_get_error(ssl, peeked) {
            case SSL_ERROR_WANT_READ: return nil  // a record without data (a ticket), or a silent server
            case SSL_ERROR_ZERO_RETURN: return Self.peerClosed
            case let error: return failureReason(error)
            }
        }
    }

    /// Data OpenSSL holds, decrypted or not yet (with read-ahead), that poll() cannot see.
    var hasBufferedData: Bool { SSL_has_pending(ssl) == 1 }

    /// Sends close_notify (unless the peer already said goodbye) and closes the socket.
    ///
    /// A peer that sent close_notify may have closed its socket already; OpenSSL reports an alert only
    /// once it is written, so answering would make the transcript depend on timing, and tells nobody anything.
    ///
    /// - Parameter finishing: first wait, reading and dropping, until the peer closes too (`Socket.finish`),
    ///   so a peer that still sends cannot make the kernel reset the connection before it read our last words.
    func close(finishing: Bool = false) {
        if SSL_is_init_finished(ssl) == 1, receivedAlert != "close_notify" {
            // Its result does not matter: the socket closes next either way.
            _ = OpenSSL.isolatingErrors { SSL_shutdown(ssl) }
        }
        if finishing { socket.finish() }
        socket.close()
    }

    // MARK: - What OpenSSL reports

    /// `bytes` is OpenSSL's buffer, valid during the callback only: copied only for a message this end sent.
    private func observe(sent: Bool, contentType: Int32, bytes: UnsafeRawBufferPointer) {
        let records = channel(outgoing: sent, .records)
        switch contentType {
        case SSL3_RT_HANDSHAKE:
            guard sent else {
                if bytes.first == 13 { certificateRequested = true }
                return stream.noteReceived(records, 1)
            }
            if bytes.first == 11 { sentCertificate = true }
            stream.record(.handshake(HandshakeParser.message(Array(bytes), ssl: ssl, labels: stream.eventLog.label(for:))), sent: (records, 1))
        case SSL3_RT_ALERT where bytes.count >= 2:
            let name = Self.alertName(bytes[1])
            guard sent else {
                receivedAlert = name
                return stream.noteReceived(records, 1)
            }
            let reason = name == "close_notify" ? nil : alertReason()
            sentAlert = (name, reason)
            stream.record(.alert(level: bytes[0] == 2 ? "fatal" : "warning", name: name, reason: reason), sent: (records, 1))
        case SSL3_RT_CHANGE_CIPHER_SPEC:
            guard sent else { return stream.noteReceived(records, 1) }
            stream.record(.changeCipherSpec, sent: (records, 1))
        default:
            break
        }
    }

    /// Why this end is sending a fatal alert: the judge, or the check OpenSSL failed.
    private func alertReason() -> String? {
        if judgeRejected { return "the client's judge rejected the presented chain" }
        let code = ERR_peek_last_error()
        guard code != 0, let text = ERR_reason_error_string(code) else { return nil }
        return Self.explain(String(cString: text))
    }

    /// The failure reason for a peer that hung up; callers compare against it.
    static let peerClosed = "the peer closed the connection"

    private func failureReason(_ error: Int32) -> String {
        if let receivedAlert { return "the peer sent alert \(receivedAlert)" }
        if let sentAlert, sentAlert.name != "close_notify" {
            // OpenSSL answers an unexpected end of stream with decode_error; the peer is gone either way.
            if sentAlert.reason == Self.peerClosed { return Self.peerClosed }
            return "sent alert \(sentAlert.name)" + (sentAlert.reason.map { ": \($0)" } ?? "")
        }
        switch error {
        case SSL_ERROR_ZERO_RETURN:
            return Self.peerClosed
        case SSL_ERROR_SYSCALL:
            let code = errno
            return code == 0 || code == ECONNRESET || code == EPIPE ? Self.peerClosed : Socket.reason(code)
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return Socket.reason(EAGAIN)  // a blocking socket's timeout surfaces as "want read/write"
        default:
            let last = OpenSSL.drainErrors().last ?? ""
            return Self.explain(last.split(separator: ":").last.map(String.init) ?? last)
        }
    }

    /// OpenSSL's reason strings, in a learner's words where a lesson turns on them.
    static func explain(_ reason: String) -> String {
        switch reason {
        case "bad signature":
            "the CertificateVerify signature does not match the certificate's public key: the server does not hold that key"
        case "peer did not return a certificate":
            "the client sent no certificate, but this server requires one"
        case "unexpected eof while reading":
            peerClosed
        case "certificate verify failed":
            "the presented chain was rejected"
        case "no shared cipher", "no suitable signature algorithm":
            "no cipher or signature algorithm in common"
        case "unsupported protocol", "wrong version number", "tlsv1 alert protocol version":
            "no TLS version in common"
        default:
            reason
        }
    }

    static func alertName(_ code: UInt8) -> String {
        [
            0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 40: "handshake_failure", 42: "bad_certificate",
            43: "unsupported_certificate", 44: "certificate_revoked", 45: "certificate_expired", 46: "certificate_unknown",
            47: "illegal_parameter", 48: "unknown_ca", 49: "access_denied", 50: "decode_error", 51: "decrypt_error",
            70: "protocol_version", 80: "internal_error", 90: "user_canceled", 109: "missing_extension", 112: "unrecognized_name",
            116: "certificate_required", 120: "no_application_protocol",
        ][code] ?? "alert \(code)"
    }
}
