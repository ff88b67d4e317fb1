internal import COpenSSL

/// A session a server issued to resume with (an OpenSSL `SSL_SESSION`: a TLS 1.3 ticket, or a TLS 1.2 session),
/// holding the certificate the server presented in the full handshake it came from.
// @unchecked: the SSL_SESSION is only read once issued, and offered to one connection at most (see `Interception`).
final class TLSSession: @unchecked Sendable {
    let session: OpaquePointer

    /// Takes over the reference OpenSSL hands to its new-session callback.
    init(taking session: OpaquePointer) { self.session = session }

    deinit { SSL_SESSION_free(session) }
}
