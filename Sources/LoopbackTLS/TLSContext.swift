import Foundation
import PKI
internal import COpenSSL

/// An OpenSSL `SSL_CTX`, configured once and shared by every connection of one endpoint.
///
/// Building a context costs about 0.1 ms and loading PEM several times that, so nothing here is done
/// per connection. Session tickets and the session cache are off (every handshake is a full one, as a
/// lesson expects), and TLS 1.3's middlebox-compatibility ChangeCipherSpec is off (it would only clutter
/// the transcript).
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer
    let keyLog: KeyLog?

    enum Role { case server, client }

    init(role: Role, versions: ClosedRange<TLSVersion> = .tls12 ... .tls13, keyLog: KeyLog? = nil) throws {
        _ = Self.brokenPipesIgnored
        guard let context = SSL_CTX_new(role == .server ? TLS_server_method() : TLS_client_method()) else {
            throw NetworkError.tls(operation: "SSL_CTX_new", details: OpenSSL.drainErrors())
        }
        self.context = context
        self.keyLog = keyLog
        SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, versions.lowerBound.openSSLValue, nil)
        SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, versions.upperBound.openSSLValue, nil)
        SSL_CTX_ctrl(context, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        SSL_CTX_set_num_tickets(context, 0)
        SSL_CTX_clear_options(context, COpenSSL_SSL_OP_ENABLE_MIDDLEBOX_COMPAT())
        SSL_CTX_set_options(context, COpenSSL_SSL_OP_NO_TICKET())
        SSL_CTX_ctrl(context, SSL_CTRL_MODE, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_AUTO_RETRY), nil)
        // Read ahead: one recv() can fetch several records instead of a header and a body per record.
        SSL_CTX_ctrl(context, SSL_CTRL_SET_READ_AHEAD, 1, nil)
        SSL_CTX_set_default_read_buffer_len(context, 64 << 10)
        if keyLog != nil {
            SSL_CTX_set_ex_data(context, TLSContext.index, Unmanaged.passUnretained(self).toOpaque())
            SSL_CTX_set_keylog_callback(context) { ssl, line in
                guard let ssl, let line, let raw = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), TLSContext.index) else { return }
                Unmanaged<TLSContext>.fromOpaque(raw).takeUnretainedValue().keyLog?.append(String(cString: line))
            }
        }
    }

    deinit { SSL_CTX_free(context) }

    /// A peer that closes first must not kill the process from inside SSL_write or SSL_shutdown.
    private static let brokenPipesIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    static let index = COpenSSL_SSL_CTX_get_ex_new_index()

    /// The certificate chain (leaf first) and key this endpoint presents.
    func use(_ identity: Identity, chain: [Certificate]) throws {
        guard SSL_CTX_use_certificate(context, identity.certificate.x509) == 1,
              SSL_CTX_use_PrivateKey(context, identity.privateKey.pkey) == 1 else {
            throw NetworkError.tls(operation: "SSL_CTX_use_certificate", details: OpenSSL.drainErrors())
        }
        for certificate in chain where certificate != identity.certificate {
            SSL_CTX_ctrl(context, SSL_CTRL_CHAIN_CERT, 1, UnsafeMutableRawPointer(certificate.x509))
        }
    }

    /// TLS 1.3 session tickets after each handshake, as most public servers send them.
    func sendSessionTickets(_ count: Int) {
        SSL_CTX_set_num_tickets(context, count)
        SSL_CTX_clear_options(context, COpenSSL_SSL_OP_NO_TICKET())
    }

    /// Two-way TLS: ask every client for a certificate issued by one of `authorities`, and refuse none.
    func requireClientCertificates(issuedBy authorities: [Certificate]) {
        let store = SSL_CTX_get_cert_store(context)
        for authority in authorities { X509_STORE_add_cert(store, authority.x509) }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
    }

    /// The client side hands the presented chain to the connection's judge instead of verifying it.
    func judgeServerCertificates() {
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        SSL_CTX_set_cert_verify_callback(context, { store, _ in
            guard let store,
                  let raw = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
                  let connection = TLSConnection.from(OpaquePointer(raw)) else { return 0 }
            let accepted = connection.judgePresentedChain(store)
            if !accepted { X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED) }
            return accepted ? 1 : 0
        }, nil)
    }

    /// The proxy's downstream side: pause at the ClientHello until a certificate has been chosen.
    func pauseAtClientHello() {
        SSL_CTX_set_client_hello_cb(context, { ssl, _, _ in
            guard let ssl, let connection = TLSConnection.from(ssl) else { return 0 }
            return connection.hasServerCertificate ? 1 : SSL_CLIENT_HELLO_RETRY
        }, nil)
    }
}

/// Appends TLS secrets in the NSS key log format (SSLKEYLOGFILE), so Wireshark can decrypt a capture.
public final class KeyLog: @unchecked Sendable {
    private let handle: Locked<UnsafeMutablePointer<FILE>>

    /// Opens `path` for appending, creating it with mode 0600 (the secrets decrypt the session).
    public init(path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0, let file = fdopen(descriptor, "a") else {
            throw NetworkError.socket(operation: "open \(path)", reason: String(cString: strerror(errno)))
        }
        handle = Locked(file)
    }

    deinit { handle.withLock { _ = fclose($0) } }

    func append(_ line: String) {
        handle.withLock { file in
            fputs(line + "\n", file)
            fflush(file)
        }
    }
}
