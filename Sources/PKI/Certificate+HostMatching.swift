import Foundation

/// Host-name matching and legacy pin digests for the peer client models, which judge a host apart from
/// chain building (OkHttp's and Android's `HostnameVerifier` run after the trust manager).
extension Certificate {
    /// True when the SAN names `host`, matched as `ServerTrust`'s SSL policy matches it from iOS 13 on: DNS names
    /// label by label with a leftmost `*` standing for one label, IP addresses as bytes; the common name is never read.
    public func subjectAlternativeNamesMatch(host: String) -> Bool { HostNameMatcher.certificate(self, names: host) }

    /// True when one DNS name (a SAN entry or a subject common name) matches `host` by those label rules.
    public static func dnsName(_ name: String, matches host: String) -> Bool { HostNameMatcher.dnsName(name, matches: host) }

    /// Base64 SHA-1 of the SubjectPublicKeyInfo: OkHttp's legacy `sha1/` pin value.
    public var publicKeySHA1Base64: String { Data(OpenSSL.sha1(publicKeyInfo)).base64EncodedString() }
}
