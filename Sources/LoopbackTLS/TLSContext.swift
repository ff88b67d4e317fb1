internal import COpenSSL
import Foundation
import PKI

/// An OpenSSL `SSL_CTX`, configured once and shared by every connection of one endpoint.
///
/// Building a context costs about 0.1 ms and loading PEM several times that, so nothing here is done
/// per connection. Session tickets and the session cache are off (every handshake is a full one, as a
/// lesson expects), and TLS 1.3's middlebox-compatibility ChangeCipherSpec is off (it would only clutter
/// the transcript). A client context is made in `CertificateReadingContext`, where reading the server's
/// certificates costs less than half what it does in OpenSSL's default context.
// @unchecked: the SSL_CTX is configured before the context is shared and only read afterwards (by
// SSL_new), which OpenSSL allows from any thread.
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer

    enum Role { case server, client }

    /// - Parameter allowsWeakCryptography: OpenSSL's security level 0, the only one at which OpenSSL 3.0 negotiates
    ///   TLS 1.0 and 1.1, loads an RSA-1024 key or a SHA-1-signed certificate, and accepts them from a peer. Off,
    ///   the context keeps OpenSSL's default level.
    init(role: Role, versions: ClosedRange<TLSVersion> = .tls12 ... .tls13, allowsWeakCryptography: Bool = false, keyLog: KeyLog? = nil) throws {
        _ = Self.brokenPipesIgnored
        context = try OpenSSL.isolatingErrors {
            try Self.makeContext(role: role, versions: versions, allowsWeakCryptography: allowsWeakCryptography, keyLog: keyLog)
        }
    }

    private static func makeContext(role: Role, versions: ClosedRange<TLSVersion>, allowsWeakCryptography: Bool, keyLog: KeyLog?) throws -> OpaquePointer {
        let made =
            switch role {
            case .server: SSL_CTX_new(TLS_server_method())
            case .client: SSL_CTX_new_ex(CertificateReadingContext.shared, nil, TLS_client_method())
            }
        guard let context = made else { throw failure("SSL_CTX_new") }
        do {
            if allowsWeakCryptography { SSL_CTX_set_security_level(context, 0) }
            try require(SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, versions.lowerBound.openSSLValue, nil) == 1, "SSL_CTX_set_min_proto_version")
            try require(SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, versions.upperBound.openSSLValue, nil) == 1, "SSL_CTX_set_max_proto_version")
            // These three return the previous or new setting, not a status: they cannot fail.
            SSL_CTX_ctrl(context, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
            SSL_CTX_clear_options(context, COpenSSL_SSL_OP_ENABLE_MIDDLEBOX_COMPAT())
            SSL_CTX_set_options(context, COpenSSL_SSL_OP_NO_TICKET())
            try require(SSL_CTX_set_num_tickets(context, 0) == 1, "SSL_CTX_set_num_tickets")
            SSL_CTX_ctrl(context, SSL_CTRL_MODE, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_AUTO_RETRY), nil)
            // Read ahead: one recv() can fetch several records instead of a header and a body per record.
            SSL_CTX_ctrl(context, SSL_CTRL_SET_READ_AHEAD, 1, nil)
            SSL_CTX_set_default_read_buffer_len(context, 64 << 10)
            if let keyLog { try install(keyLog, in: context) }
            return context
        } catch {
            SSL_CTX_free(context)
            throw error
        }
    }

    /// The SSL_CTX holds a retained reference to `keyLog` in its ex_data slot, released by the slot's free
    /// callback when OpenSSL frees the SSL_CTX, so the key-log callback can never see a freed KeyLog: every
    /// SSL that can call it keeps its SSL_CTX alive, however long the owning `TLSContext` lives.
    private static func install(_ keyLog: KeyLog, in context: OpaquePointer) throws {
        let retained = Unmanaged.passRetained(keyLog).toOpaque()
        guard SSL_CTX_set_ex_data(context, keyLogSlot, retained) == 1 else {
            Unmanaged<KeyLog>.fromOpaque(retained).release()
            throw failure("SSL_CTX_set_ex_data")
        }
        SSL_CTX_set_keylog_callback(context) { ssl, line in
            guard let ssl, let line, let raw = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), TLSContext.keyLogSlot) else { return }
            Unmanaged<KeyLog>.fromOpaque(raw).takeUnretainedValue().append(String(cString: line))
        }
    }

    /// The ex_data slot that owns a context's KeyLog (see `install(_:in:)`).
    static let keyLogSlot: Int32 = {
        let slot = COpenSSL_SSL_CTX_get_ex_new_index { _, pointer, _, _, _, _ in
            if let pointer { Unmanaged<KeyLog>.fromOpaque(pointer).release() }
        }
        // Allocating an index only fails when OpenSSL is out of memory.
        precondition(slot >= 0, "SSL_CTX_get_ex_new_index failed: out of memory")
        return slot
    }()

    private static func require(_ succeeded: Bool, _ operation: String) throws {
        guard succeeded else { throw failure(operation) }
    }

    private static func failure(_ operation: String) -> NetworkError {
        .tls(operation: operation, details: OpenSSL.drainErrors())
    }

    deinit { SSL_CTX_free(context) }

    /// A peer that closes first must not kill the process from inside SSL_write or SSL_shutdown.
    private static let brokenPipesIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// The certificate chain (leaf first) and key this endpoint presents.
    func use(_ identity: Identity, chain: [Certificate]) throws {
        try OpenSSL.isolatingErrors {
            try Self.require(SSL_CTX_use_certificate(context, identity.certificate.x509) == 1, "SSL_CTX_use_certificate")
            try Self.require(SSL_CTX_use_PrivateKey(context, identity.privateKey.pkey) == 1, "SSL_CTX_use_PrivateKey")
            for certificate in chain where certificate != identity.certificate {
                try Self.require(SSL_CTX_ctrl(context, SSL_CTRL_CHAIN_CERT, 1, UnsafeMutableRawPointer(certificate.x509)) == 1, "SSL_CTX_add1_chain_cert")
            }
        }
    }

    /// TLS 1.3 session tickets after each handshake, as most public servers send them.
    func sendSessionTickets(_ count: Int) throws {
        try OpenSSL.isolatingErrors { try Self.require(SSL_CTX_set_num_tickets(context, count) == 1, "SSL_CTX_set_num_tickets") }
        SSL_CTX_clear_options(context, COpenSSL_SSL_OP_NO_TICKET())
    }

    /// The suites a server without forward secrecy offers: RSA key exchange only, which TLS 1.0 to 1.2 have
    /// and TLS 1.3 does not (the client encrypts the premaster secret to the leaf's RSA key, so whoever gets that
    /// key later decrypts every recorded session). GCM first; the CBC ones are all TLS 1.0 and 1.1 know.
    static let rsaKeyExchangeSuites = "AES128-GCM-SHA256:AES256-GCM-SHA384:AES128-SHA256:AES256-SHA256:AES128-SHA:AES256-SHA"

    /// A server without forward secrecy: it offers only `rsaKeyExchangeSuites`, and its own order decides, so
    /// an OpenSSL client (which prefers AES-256) negotiates the first one both have.
    func offerOnlyRSAKeyExchange() throws {
        try OpenSSL.isolatingErrors {
            try Self.require(SSL_CTX_set_cipher_list(context, Self.rsaKeyExchangeSuites) == 1, "SSL_CTX_set_cipher_list")
        }
        // Returns the new options, not a status: it cannot fail.
        SSL_CTX_set_options(context, COpenSSL_SSL_OP_CIPHER_SERVER_PREFERENCE())
    }

    /// Two-way TLS: ask every client for a certificate issued by one of `authorities`, and refuse none.
    func requireClientCertificates(issuedBy authorities: [Certificate]) throws {
        try OpenSSL.isolatingErrors {
            guard let store = SSL_CTX_get_cert_store(context) else { throw Self.failure("SSL_CTX_get_cert_store") }
            for authority in authorities { try Self.require(X509_STORE_add_cert(store, authority.x509) == 1, "X509_STORE_add_cert") }
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
    }

    /// The client side hands the presented chain to the connection's judge instead of verifying it.
    func judgeServerCertificates() {
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        SSL_CTX_set_cert_verify_callback(
            context,
            { store, _ in
                guard let store,
                    let raw = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
                    let connection = TLSConnection.from(OpaquePointer(raw))
                else { return 0 }
                let accepted = connection.judgePresentedChain(store)
                if !accepted { X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED) }
                return accepted ? 1 : 0
            }, nil)
    }

    /// The proxy's upstream side forges from whatever chain the server presents and judges none: OpenSSL's
    /// own chain building, whose verdict nobody would read, is skipped.
    func takeServerCertificatesUnjudged() {
        SSL_CTX_set_cert_verify_callback(context, { _, _ in 1 }, nil)
    }

    /// The proxy's upstream side keeps what a server issues to resume with: each new session goes to the connection's
    /// `onNewSession` (OpenSSL's own cache is off, so nothing is resumed unless the proxy offers it).
    func handNewSessionsToConnections() {
        // Both return the new setting, not a status: they cannot fail.
        SSL_CTX_ctrl(context, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE), nil)
        SSL_CTX_clear_options(context, COpenSSL_SSL_OP_NO_TICKET())
        SSL_CTX_sess_set_new_cb(context) { ssl, session in
            guard let ssl, let session, let connection = TLSConnection.from(ssl), let keep = connection.onNewSession else { return 0 }
            keep(TLSSession(taking: session))  // 1: the reference is the TLSSession's now
            return 1
        }
    }

    /// The proxy's downstream side: pause at the ClientHello until a certificate has been chosen.
    func pauseAtClientHello() {
        SSL_CTX_set_client_hello_cb(
            context,
            { ssl, _, _ in
                guard let ssl, let connection = TLSConnection.from(ssl) else { return 0 }
                return connection.hasServerCertificate ? 1 : SSL_CLIENT_HELLO_RETRY
            }, nil)
    }
}
