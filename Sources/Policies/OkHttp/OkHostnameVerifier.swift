import PKI

/// OkHttp's `OkHostnameVerifier`, written from its source (`okhttp3/internal/tls/OkHostnameVerifier`, at
/// OkHttp 4.12.0 and 3.1.1), which Android also bundles as its default `HostnameVerifier`. Not Apple's
/// matcher: a `*` is a whole leftmost label over any suffix (`*.test` names `bank.test`), a trailing dot on
/// either side is ignored, and an IP address is compared only with the SAN's IP addresses. (OkHttp 4 also
/// refuses a host outside ASCII, which no certificate mitmsim makes could name.)
public struct OkHostnameVerifier: Sendable, Equatable {
    /// OkHttp before 3.10.0: when the SAN holds no DNS name, the subject's common name is read instead.
    public var commonNameFallback: Bool

    /// The verifier OkHttp 4.12.0 uses (`okhttp`).
    public static let okHttp4 = OkHostnameVerifier(commonNameFallback: false)
    /// The verifier of OkHttp 3.1.1 (`okhttp-3.1.1`), with its common-name fallback.
    public static let okHttp3 = OkHostnameVerifier(commonNameFallback: true)
    /// Android's bundled copy (`com.android.okhttp`), as the Network Security Config's HTTP stack uses it; its
    /// common-name fallback is not modelled.
    public static let android = OkHostnameVerifier(commonNameFallback: false)

    public init(commonNameFallback: Bool) {
        self.commonNameFallback = commonNameFallback
    }

    /// What `verify(host, certificate)` found: the SAN entry or common name that names the host, if any.
    public enum Match: Equatable, Sendable {
        /// A SAN entry (a DNS name or an IP address) names the host.
        case subjectAlternativeName(String)
        /// The SAN has no DNS name, and the common name names the host (`commonNameFallback` only).
        case commonName(String)
    }

    /// `verify(host, certificate)`: nil when the leaf does not name `host`.
    public func match(host: String, leaf: Certificate) -> Match? {
        // canParseAsIpAddress / verifyAsIpAddress: an address is compared with the SAN's addresses only.
        if let address = IPAddress.bytes(host) {
            return leaf.ipAddresses.first { IPAddress.bytes($0) == address }.map(Match.subjectAlternativeName)
        }
        let hostname = host.lowercased()
        if let name = leaf.dnsNames.first(where: { Self.hostname(hostname, matches: $0) }) { return .subjectAlternativeName(name) }
        guard commonNameFallback, leaf.dnsNames.isEmpty, let commonName = leaf.subject.commonName,
            Self.hostname(hostname, matches: commonName)
        else { return nil }
        return .commonName(commonName)
    }

    /// `verifyHostname(hostname, pattern)` for a lowercased host: both get a trailing dot, the pattern is
    /// lowercased, and a `*` may only be the whole first label of the pattern, standing for one label of the host.
    static func hostname(_ host: String, matches name: String) -> Bool {
        guard !host.isEmpty, !host.hasPrefix("."), !host.hasSuffix(".."), !name.isEmpty, !name.hasPrefix("."), !name.hasSuffix("..") else {
            return false
        }
        // Java compares UTF-16 code units; so does this.
        let hostname = Array((host.hasSuffix(".") ? host : host + ".").utf16)
        let pattern = Array((name.hasSuffix(".") ? name : name + ".").lowercased().utf16)
        let star = UInt16(UInt8(ascii: "*"))
        let dot = UInt16(UInt8(ascii: "."))
        guard pattern.contains(star) else { return hostname == pattern }
        // Only a leading "*." with no other "*"; never "*." alone; the host at least as long as the pattern.
        guard pattern.count >= 2, pattern[0] == star, pattern[1] == dot, !pattern.dropFirst().contains(star), hostname.count >= pattern.count,
            pattern.count > 2
        else { return false }
        let suffix = pattern.dropFirst()
        guard hostname.suffix(suffix.count).elementsEqual(suffix) else { return false }
        // The asterisk may not match across labels.
        return !hostname.dropLast(suffix.count).contains(dot)
    }
}
