import PKI

/// The options of a `curl` command line (or their libcurl `CURLOPT_*` names) that decide whether it trusts
/// the server, with curl's defaults.
public struct CurlOptions: Sendable, Equatable {
    /// `CURLOPT_SSL_VERIFYPEER` (default on; `-k`/`--insecure` turns it off): OpenSSL must verify the chain
    /// against the CA bundle.
    public var verifyPeer: Bool
    /// `CURLOPT_SSL_VERIFYHOST` (default 2, on; `-k` turns it off too): the leaf must name the host.
    public var verifyHost: Bool
    /// `--pinnedpubkey` / `CURLOPT_PINNEDPUBLICKEY` (default none): the key the leaf must have, checked
    /// whatever `verifyPeer` and `verifyHost` say.
    public var pinnedPublicKey: CurlPinnedPublicKey?
    /// `--cacert` / `CURLOPT_CAINFO` (default nil: the CA bundle is the device's trust store, see
    /// Docs/peers.md): the only certificates that may end a chain, as a PEM bundle would give them.
    public var caCertificates: [Certificate]?

    public init(verifyPeer: Bool = true, verifyHost: Bool = true, pinnedPublicKey: CurlPinnedPublicKey? = nil, caCertificates: [Certificate]? = nil) {
        self.verifyPeer = verifyPeer
        self.verifyHost = verifyHost
        self.pinnedPublicKey = pinnedPublicKey
        self.caCertificates = caCertificates
    }

    /// `curl -k` (`--insecure`): VERIFYPEER and VERIFYHOST off; a pinned key is still checked.
    public static func insecure(pinnedPublicKey: CurlPinnedPublicKey? = nil) -> CurlOptions {
        CurlOptions(verifyPeer: false, verifyHost: false, pinnedPublicKey: pinnedPublicKey)
    }

    /// "VERIFYPEER on, VERIFYHOST on, --pinnedpubkey sha256//…": the options as a run's settings line shows them.
    public var summary: String {
        let pin = pinnedPublicKey.map { ", --pinnedpubkey \($0)" } ?? ""
        let bundle = caCertificates.map { ", --cacert with \(SecurityPolicy.names($0))" } ?? ""
        return "VERIFYPEER \(verifyPeer ? "on" : "off"), VERIFYHOST \(verifyHost ? "on" : "off")\(pin)\(bundle)"
    }
}

/// The value of `--pinnedpubkey`: hashes written inline, or a public-key file.
public enum CurlPinnedPublicKey: Sendable, Equatable, CustomStringConvertible {
    /// `sha256//<base64>;sha256//<base64>…`, as given. curl compares each `sha256//` entry with the base64
    /// SHA-256 of the leaf's SPKI (`Certificate.publicKeyPin`), and stops at the first entry without the prefix.
    case hashes(String)
    /// A public-key file (`--pinnedpubkey key.pem`): its name and its bytes, a PEM `PUBLIC KEY` or DER
    /// SubjectPublicKeyInfo, compared byte for byte with the leaf's SPKI.
    case file(name: String, contents: [UInt8])

    /// The pinned value as the command line writes it (escaped: it comes from outside).
    public var description: String {
        switch self {
        case .hashes(let value): TerminalText.escaped(value)
        case .file(let name, _): TerminalText.escaped(name)
        }
    }
}

/// A `CURLcode` a transfer ends with, which the `curl` command returns as its exit code.
public struct CurlCode: Hashable, Sendable, CustomStringConvertible, Encodable {
    /// The number, e.g. 60.
    public let code: Int
    /// curl's constant, e.g. `CURLE_PEER_FAILED_VERIFICATION`.
    public let name: String

    /// 60: the host name check or OpenSSL's chain verification failed.
    public static let peerFailedVerification = CurlCode(code: 60, name: "CURLE_PEER_FAILED_VERIFICATION")
    /// 35: the TLS handshake failed (here: the server spoke a TLS version curl or OpenSSL refuses).
    public static let sslConnectError = CurlCode(code: 35, name: "CURLE_SSL_CONNECT_ERROR")
    /// 90: the leaf's public key is not the pinned one.
    public static let sslPinnedPublicKeyNotMatch = CurlCode(code: 90, name: "CURLE_SSL_PINNEDPUBKEYNOTMATCH")

    /// "CURLE_PEER_FAILED_VERIFICATION (60)".
    public var description: String { "\(name) (\(code))" }
}
