import Foundation
import PKI

/// `curl` (libcurl with its OpenSSL backend) deciding whether to go on with a TLS connection. The order of
/// its checks depends on the release (`lib/vtls/openssl.c`): up to 8.16, VERIFYPEER is OpenSSL's
/// `SSL_VERIFY_PEER` and fails the handshake before anything else, then `servercert` checks VERIFYHOST and
/// the pinned key; from 8.17 the handshake always completes and `Curl_ossl_check_peer_cert` checks
/// VERIFYHOST, then OpenSSL's verify result (VERIFYPEER), then `--pinnedpubkey` on the leaf's key.
///
/// The chain is verified under OpenSSL's rules (`Platform.openSSL`) against curl's CA bundle: `--cacert`
/// when given, else the device's trust store (its built-in and user-installed roots alike, as a CA bundle
/// holds both), with partial chains allowed as curl allows them.
public struct CurlClient: ClientModel, Equatable {
    /// Which curl; the raw value is the model's name.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // The release numbers read best with their dots as underscores (curl7_88), as AFNetworkingVersion's do.
    public enum Release: String, Sendable, CaseIterable {
        /// curl 7.88.1, the one Debian 12 ships (and every release up to 8.16): VERIFYPEER fails the handshake.
        case curl7_88 = "curl"
        /// curl 8.17 and later: the host name is checked before OpenSSL's verify result.
        case curl8_17 = "curl-8.17"

        /// The oldest TLS version the release finishes a handshake with when no `--tlsv1.x` option is given
        /// (Docs/peers.md §8 cites the sources).
        var tlsVersionFloor: TLSVersionFloor {
            switch self {
            case .curl7_88:
                // lib/vtls/openssl.c at curl-7_88_1 skips SSL_CTX_set_min_proto_version for CURL_SSLVERSION_DEFAULT.
                TLSVersionFloor(
                    minimum: .tls12,
                    rule: "curl 7.88.1 sets no minimum of its own (CURL_SSLVERSION_DEFAULT keeps OpenSSL's), "
                        + "and OpenSSL 3, which Debian 12 ships it with, allows TLS 1.0 and 1.1 only at security level 0")
            case .curl8_17:
                // lib/setopt.c since curl-8_16_0: CURL_SSLVERSION_DEFAULT becomes CURL_SSLVERSION_TLSv1_2.
                TLSVersionFloor(minimum: .tls12, rule: "since 8.16.0 curl's CURL_SSLVERSION_DEFAULT means TLS 1.2 or later")
            }
        }
    }

    /// The release whose order of checks applies.
    public var release: Release
    /// The command's TLS options.
    public var options: CurlOptions

    public init(release: Release = .curl7_88, options: CurlOptions = CurlOptions()) {
        self.release = release
        self.options = options
    }

    /// What the `curl` command exits with after `evaluation`: nil when the transfer goes on.
    public static func exitCode(of evaluation: PolicyEvaluation) -> CurlCode? {
        switch evaluation.rejection {
        case nil: nil
        case .curlPinnedPublicKeyMismatch: .sslPinnedPublicKeyNotMatch
        case .tlsVersionRefused: .sslConnectError
        default: .peerFailedVerification
        }
    }

    /// curl's checks on the URL's host (`domain` is not used), in the release's order.
    public func evaluate(_ connection: PresentedConnection) -> PolicyEvaluation {
        var trace = Trace()
        guard release.tlsVersionFloor.allows(connection.negotiated.version, check: .curlTLSVersion, failure: "\(CurlCode.sslConnectError)", trace: &trace)
        else { return trace.reject(.tlsVersionRefused, path: []) }
        let leaf = connection.serverTrust.leaf
        let result = caBundleTrust(connection.serverTrust).evaluate()

        // Up to 8.16: SSL_CTX_set_verify(ctx, verifypeer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL), so with VERIFYPEER on
        // a chain OpenSSL does not verify ends SSL_connect: "SSL certificate problem: …", CURLE_PEER_FAILED_VERIFICATION.
        let verifiedInHandshake = release == .curl7_88 && options.verifyPeer
        if verifiedInHandshake, let rejection = checkVerifyResult(result, trace: &trace) { return rejection }

        // if(conn_config->verifyhost) { result = ossl_verifyhost(…); if(result) goto out; }
        if options.verifyHost {
            let check = CurlHostCheck(leaf: leaf, host: connection.host)
            guard check.matched else {
                trace.add(.curlVerifyHost, .failed, "\(check.sentence): \(CurlCode.peerFailedVerification)")
                return trace.reject(.curlHostNameMismatch, path: [leaf])
            }
            trace.add(.curlVerifyHost, .passed, check.sentence)
        } else {
            trace.add(.curlVerifyHost, .skipped, "CURLOPT_SSL_VERIFYHOST is 0 (-k), so the leaf's names are not compared with '\(connection.host)'")
        }

        if !verifiedInHandshake, let rejection = checkVerifyResult(result, trace: &trace) { return rejection }
        return checkPinnedKey(leaf: leaf, path: result.path, trace: &trace)
    }

    /// OpenSSL's verdict on the chain: in the handshake (up to 8.16 with VERIFYPEER on), or read after it with
    /// `SSL_get_verify_result`. Returns the rejection when VERIFYPEER is on and the chain does not verify.
    private func checkVerifyResult(_ result: TrustResult, trace: inout Trace) -> PolicyEvaluation? {
        let bundle = options.caCertificates == nil ? "curl's CA bundle (the device's trust store)" : "the --cacert bundle"
        let inHandshake = release == .curl7_88 && options.verifyPeer
        if let failure = result.reason {
            let error = failure.openSSLError
            let found = "\(error.text) (\(error.code)), verifying against \(bundle): \(SecurityPolicy.failures(result))"
            if inHandshake {
                trace.add(
                    .curlVerifyPeer, .failed,
                    "SSL_VERIFY_PEER ends the handshake before the host name is looked at. SSL certificate problem: \(found): "
                        + "\(CurlCode.peerFailedVerification)")
                return trace.reject(.untrustedChain(failure), path: result.path)
            }
            let verdict = "SSL certificate OpenSSL verify result: \(found)"
            guard !options.verifyPeer else {
                trace.add(.curlVerifyPeer, .failed, "\(verdict): \(CurlCode.peerFailedVerification)")
                return trace.reject(.untrustedChain(failure), path: result.path)
            }
            trace.add(
                .curlVerifyPeer, .skipped, "\(verdict). CURLOPT_SSL_VERIFYPEER is 0 (-k): SSL certificate verification failed, continuing anyway!")
            return nil
        }
        let verified = "OpenSSL verifies the chain against \(bundle): path \(result.path.pathDescription), ending at '\(result.path.last?.label ?? "")'"
        if inHandshake {
            trace.add(.curlVerifyPeer, .passed, "\(verified), in the handshake (SSL_VERIFY_PEER)")
        } else if options.verifyPeer {
            trace.add(.curlVerifyPeer, .passed, verified)
        } else {
            trace.add(.curlVerifyPeer, .skipped, "\(verified), but CURLOPT_SSL_VERIFYPEER is 0 (-k), so the result decides nothing")
        }
        return nil
    }

    /// `ossl_check_pinned_key`: the leaf's SPKI (`i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert))`) against
    /// `--pinnedpubkey`, whatever VERIFYPEER and VERIFYHOST said.
    private func checkPinnedKey(leaf: Certificate, path: [Certificate], trace: inout Trace) -> PolicyEvaluation {
        guard let pinned = options.pinnedPublicKey else {
            trace.add(.curlPinnedPublicKey, .skipped, "no --pinnedpubkey, so the leaf's key is not checked")
            return trace.accept(path: path)
        }
        let evenInsecure = options.verifyPeer && options.verifyHost ? "" : " (checked even with -k)"
        let mismatch = " \(CurlCode.sslPinnedPublicKeyNotMatch)"
        switch pinned {
        case .hashes(let value):
            let (compared, ignored) = Self.pinnedHashes(in: value)
            let ignoredClause = ignored.isEmpty ? "" : "; curl stops at '\(TerminalText.escaped(ignored))', which does not start with sha256//"
            guard compared.contains(leaf.publicKeySHA256Base64) else {
                let pins =
                    compared.isEmpty
                    ? "no sha256// pin to compare it with"
                    : "not among the pinned \(compared.map { "sha256//\(TerminalText.escaped($0))" }.joined(separator: ", "))"
                trace.add(
                    .curlPinnedPublicKey, .failed,
                    "the key of the leaf '\(leaf.label)' hashes to \(leaf.publicKeyPin), \(pins)\(ignoredClause)\(evenInsecure):\(mismatch)")
                return trace.reject(.curlPinnedPublicKeyMismatch, path: path)
            }
            trace.add(.curlPinnedPublicKey, .passed, "the key of the leaf '\(leaf.label)' hashes to \(leaf.publicKeyPin), a pinned hash\(evenInsecure)")
        case .file(let name, let contents):
            let file = "'\(TerminalText.escaped(name))'"
            guard Self.subjectPublicKeyInfo(inFile: contents) == leaf.publicKeyInfo else {
                trace.add(
                    .curlPinnedPublicKey, .failed,
                    "the key of the leaf '\(leaf.label)' (\(leaf.keyDescription)) is not the public key in \(file)\(evenInsecure):\(mismatch)")
                return trace.reject(.curlPinnedPublicKeyMismatch, path: path)
            }
            trace.add(.curlPinnedPublicKey, .passed, "the key of the leaf '\(leaf.label)' is the public key in \(file)\(evenInsecure)")
        }
        return trace.accept(path: path)
    }

    /// The chain under OpenSSL's rules, with the CA bundle as the only anchors (partial chains allowed).
    private func caBundleTrust(_ presented: ServerTrust) -> ServerTrust {
        var trust = ServerTrust(
            certificates: presented.certificates, deviceTrustStore: presented.deviceTrustStore, policy: .ssl(host: nil), verifyDate: presented.verifyDate,
            platform: .openSSL)
        // curl sets X509_V_FLAG_PARTIAL_CHAIN unless CURLSSLOPT_NO_PARTIALCHAIN: any bundle certificate may end a chain.
        trust.setAnchorCertificates(options.caCertificates ?? presented.deviceTrustStore.anchors)
        return trust
    }

    /// The base64 hashes of the `sha256//` entries of a `--pinnedpubkey` value, in order, and the entry
    /// curl's loop stopped at (empty when it read them all).
    static func pinnedHashes(in value: String) -> (compared: [String], ignored: String) {
        var compared: [String] = []
        var rest = Substring(value)
        while rest.hasPrefix("sha256//") {
            rest = rest.dropFirst("sha256//".count)
            let end = rest.firstIndex(of: ";") ?? rest.endIndex
            compared.append(String(rest[..<end]))
            guard end < rest.endIndex else { return (compared, "") }
            rest = rest[rest.index(after: end)...]
        }
        return (compared, String(rest))
    }

    /// The DER SubjectPublicKeyInfo in a public-key file: the base64 between PEM `PUBLIC KEY` lines, else the
    /// bytes as they are (curl reads a file that is not PEM as DER); nil for a PEM whose base64 does not read.
    static func subjectPublicKeyInfo(inFile contents: [UInt8]) -> [UInt8]? {
        let text = String(decoding: contents, as: UTF8.self)
        let begin = "-----BEGIN PUBLIC KEY-----"
        let end = "-----END PUBLIC KEY-----"
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) else { return contents }
        let base64 = text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
        return Data(base64Encoded: String(base64)).map { Array($0) }
    }
}

/// curl's own host name check (`ossl_verifyhost` with `Curl_cert_hostcheck`), which is neither Apple's nor
/// OpenSSL's `X509_check_host`: the SAN entries of the host's type; only when the SAN has no DNS name and
/// no IP address, the last common name; a wildcard only as a whole leftmost `*.` label over a pattern with
/// at least two dots, never for an IP address; one trailing dot ignored on either side; ASCII case ignored.
struct CurlHostCheck {
    let matched: Bool
    /// What curl found, in words, naming the leaf by label.
    let sentence: String

    init(leaf: Certificate, host: String) {
        let name = "'\(leaf.label)'"
        // Curl_host_is_ipnum: the host is an address when inet_pton reads it as IPv4 or IPv6.
        let target = IPAddress.bytes(host)
        let kind = target == nil ? "hostname" : target?.count == 4 ? "IPv4 address" : "IPv6 address"
        let hasSAN = !leaf.dnsNames.isEmpty || !leaf.ipAddresses.isEmpty
        if hasSAN {
            let match =
                target.map { bytes in leaf.ipAddresses.first { IPAddress.bytes($0) == bytes } }
                ?? leaf.dnsNames.first { !$0.contains("\0") && Self.hostMatch(host, pattern: $0) }
            let listed = (leaf.dnsNames + leaf.ipAddresses).map { "'\(TerminalText.escaped($0))'" }.joined(separator: ", ")
            if let match {
                matched = true
                sentence = "VERIFYHOST: the SAN of \(name) has '\(TerminalText.escaped(match))', which matches the \(kind) '\(host)'"
            } else {
                matched = false
                sentence =
                    "SSL: no alternative certificate subject name matches target \(kind) '\(host)' (the SAN of \(name) lists \(listed); "
                    + "curl never falls back to the common name when the SAN has a DNS name or an IP address)"
            }
            return
        }
        guard let commonName = leaf.subject.commonName else {
            matched = false
            sentence = "SSL: unable to obtain common name from peer certificate (\(name) has neither a SAN nor a common name)"
            return
        }
        let escaped = TerminalText.escaped(commonName)
        matched = !commonName.contains("\0") && Self.hostMatch(host, pattern: commonName)
        sentence =
            matched
            ? "VERIFYHOST: \(name) has no SAN, so curl compares its common name '\(escaped)', which matches the \(kind) '\(host)'"
            : "SSL: certificate subject name '\(escaped)' does not match target hostname '\(host)' (\(name) has no SAN, so curl compares its common name)"
    }

    /// `hostmatch`: RFC 6125 section 6.4.3 as curl applies it.
    static func hostMatch(_ hostname: String, pattern: String) -> Bool {
        guard !hostname.isEmpty, !pattern.isEmpty else { return false }
        let host = Substring(hostname.hasSuffix(".") ? String(hostname.dropLast()) : hostname)
        let wanted = Substring(pattern.hasSuffix(".") ? String(pattern.dropLast()) : pattern)
        guard wanted.hasPrefix("*.") else { return equalIgnoringASCIICase(host, wanted) }
        if IPAddress.bytes(hostname) != nil || host.hasPrefix(".") { return false }
        // At least two dots in the pattern, or "*.com" is compared as written.
        guard let patternDot = wanted.firstIndex(of: "."), wanted.lastIndex(of: ".") != patternDot else { return equalIgnoringASCIICase(host, wanted) }
        guard let hostDot = host.firstIndex(of: ".") else { return false }
        return equalIgnoringASCIICase(host[hostDot...], wanted[patternDot...])
    }

    private static func equalIgnoringASCIICase(_ left: Substring, _ right: Substring) -> Bool {
        left.utf8.count == right.utf8.count && zip(left.utf8, right.utf8).allSatisfy { lower($0) == lower($1) }
    }

    private static func lower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }
}
