import COpenSSL
import Testing

@testable import PKI

/// The library context mitmsim's TLS clients run in offers fewer of OpenSSL's algorithms than its default context,
/// to read certificates quicker; what a TLS client can negotiate there stays the same.
struct CertificateReadingContextTests {
    /// The cipher suites a TLS client made in `libraryContext` (nil: OpenSSL's default context) can use, by name,
    /// with every suite OpenSSL knows asked for at security level 0 (TLS 1.0 to 1.3 alike).
    func cipherSuites(in libraryContext: OpaquePointer?) throws -> [String] {
        let context = try #require(SSL_CTX_new_ex(libraryContext, nil, TLS_client_method()))
        defer { SSL_CTX_free(context) }
        try #require(SSL_CTX_set_cipher_list(context, "ALL:COMPLEMENTOFALL:@SECLEVEL=0") == 1)
        let tls13 = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_CCM_SHA256:TLS_AES_128_CCM_8_SHA256"
        try #require(SSL_CTX_set_ciphersuites(context, tls13) == 1)
        let suites = try #require(SSL_CTX_get_ciphers(context))
        return (0..<OPENSSL_sk_num(suites)).map { index in
            String(cString: SSL_CIPHER_get_name(OpaquePointer(OPENSSL_sk_value(suites, index))))
        }
    }

    @Test func aTLSClientCanUseEveryCipherSuiteItCouldInOpenSSLsDefaultContext() throws {
        let everywhere = try cipherSuites(in: nil)
        #expect(everywhere.count > 60, "OpenSSL's default context should offer dozens of suites at security level 0")
        #expect(try cipherSuites(in: CertificateReadingContext.shared) == everywhere)
    }
}
