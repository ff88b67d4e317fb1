/// Whether a leaf names the host, decided as Apple's SSL policy decides it (the trust daemon's
/// `SecPolicyCheckCertSSLHostname` and `SecDNSMatch`), not as OpenSSL's `X509_check_host` does.
///
/// From iOS 13 on only the SAN counts (`SecCertificateCopyDNSNamesFromSAN`, Security-59306 on). The host is
/// first matched against the SAN's DNS names; when it is written as an IP address it is then compared, as
/// bytes, with the SAN's IP addresses. iOS 12 (`commonNameFallback`) read `SecCertificateCopyDNSNames`
/// instead (Security-58286): every DNS name in the SAN, or, when the SAN has none, every common name in
/// the subject that is written like a DNS name. `Platform.openSSL` takes the same fallback, as OpenSSL's
/// `X509_check_host` reads the common name only when the SAN has no DNS name.
package enum HostNameMatcher {
    /// True when `certificate` names `host`. An empty host is named by no certificate.
    package static func certificate(_ certificate: Certificate, names host: String, commonNameFallback: Bool = false) -> Bool {
        let names = comparedDNSNames(certificate, commonNameFallback: commonNameFallback)
        let compared = names.isEmpty && commonNameFallback ? commonNames(certificate) : names
        if compared.contains(where: { dnsName($0, matches: host) }) { return true }
        guard let address = addressBytes(host) else { return false }
        return certificate.ipAddresses.contains { IPAddress.bytes($0) == address }
    }

    /// The SAN DNS names compared with the host: those written as host names, or with `commonNameFallback`
    /// (iOS 12, which filtered none) all of them.
    package static func comparedDNSNames(_ certificate: Certificate, commonNameFallback: Bool) -> [String] {
        commonNameFallback ? certificate.dnsNames : certificate.dnsNames.filter(isPresentable)
    }

    /// The subject's common names iOS 12 compares when the SAN has no DNS name: each one written like a DNS
    /// name by Security-58286's `isDNSName` (which an IPv4 address also passes), in the subject's order.
    package static func commonNames(_ certificate: Certificate) -> [String] {
        certificate.subject.attributes.filter { $0.type == "CN" && hostLabels($0.value, underscore: false) != nil }.map(\.value)
    }

    /// Apple's label-by-label match of one SAN DNS name (`presented`) against the host (`reference`).
    ///
    /// One trailing dot on the host is ignored; the SAN name keeps its own. Both must have the same
    /// number of labels, compared without regard to ASCII case. A label that is exactly `*` stands for
    /// any one label, but only as the leftmost of at least three; any other `*` matches nothing.
    static func dnsName(_ presented: String, matches reference: String) -> Bool {
        guard !reference.isEmpty else { return false }
        let host = reference.hasSuffix(".") ? reference.dropLast() : Substring(reference)
        let referenceLabels = host.split(separator: ".", omittingEmptySubsequences: false)
        let presentedLabels = presented.split(separator: ".", omittingEmptySubsequences: false)
        guard referenceLabels.count == presentedLabels.count else { return false }
        for (index, (wanted, offered)) in zip(referenceLabels, presentedLabels).enumerated() {
            if offered == "*" {
                // Apple also refuses a wildcard just above a public suffix (`*.co.uk`), by CFNetwork's list,
                // which we do not have; see Docs/policy.md section 9.
                guard index == 0, presentedLabels.count > 2 else { return false }
            } else if offered.contains("*") || !equalIgnoringASCIICase(wanted, offered) {
                return false
            }
        }
        return true
    }

    /// Apple only considers SAN DNS names written as RFC 1035 host names, with `*` and `_` allowed where a
    /// letter is: labels of 1 to 63 letters, digits, hyphens (not first or last), 255 characters at most,
    /// and a last label with a letter in it. Anything else (an address, a name with a trailing dot, a
    /// name in Unicode) is skipped.
    static func isPresentable(_ name: String) -> Bool {
        // `_` counts as a letter for where it may stand, but not as the letter the last label needs.
        hostLabels(name, underscore: true)?.last?.contains { isLetterLike($0) && $0 != UInt8(ascii: "_") } ?? false
    }

    /// The labels of `name` when each is 1 to 63 letters (`*`, and `_` if `underscore`), digits and hyphens,
    /// not starting or ending with a hyphen, in at most 255 characters; else nil.
    private static func hostLabels(_ name: String, underscore: Bool) -> [ArraySlice<UInt8>]? {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else { return nil }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for label in labels {
            guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-") else { return nil }
            let allowed = label.allSatisfy {
                (isLetterLike($0) && (underscore || $0 != UInt8(ascii: "_"))) || isDigit($0) || $0 == UInt8(ascii: "-")
            }
            guard allowed else { return nil }
        }
        return labels
    }

    /// The host as address bytes when Apple's parser reads it as an IP address (4 or 16 bytes), else nil.
    ///
    /// IPv4: four dot-separated decimal numbers up to 255, leading zeros allowed, 7 to 15 characters.
    /// IPv6: hexadecimal groups of up to four digits and `::`, optionally in brackets, with no embedded
    /// IPv4 part and no zone.
    static func addressBytes(_ text: String) -> [UInt8]? { ipv4Bytes(text) ?? ipv6Bytes(text) }

    private static func ipv4Bytes(_ text: String) -> [UInt8]? {
        guard (7...15).contains(text.utf8.count), text.utf8.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: ".") }) else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        // Apple reads each part with atoi, so an empty part is 0.
        let values = parts.map { Int($0) ?? 0 }
        guard values.allSatisfy({ $0 <= 255 }) else { return nil }
        return values.map { UInt8($0) }
    }

    private static func ipv6Bytes(_ text: String) -> [UInt8]? {
        guard (2...41).contains(text.utf8.count) else { return nil }
        let address = text.hasPrefix("[") && text.hasSuffix("]") ? text.dropFirst().dropLast() : Substring(text)
        guard address.utf8.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") }) else { return nil }
        let groups = address.split(separator: ":", omittingEmptySubsequences: false)
        guard (3...8).contains(groups.count) else { return nil }
        var bytes: [UInt8] = []
        for (index, group) in groups.enumerated() {
            if group.isEmpty {
                // An empty group at either end is one half of "::"; in the middle it stands for every missing group.
                let zeros = index == 0 || index == groups.count - 1 ? 1 : 8 - groups.count + 1
                bytes += [UInt8](repeating: 0, count: 2 * zeros)
            } else if group.count <= 4, let value = UInt16(group, radix: 16) {
                bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
        }
        return bytes.count == 16 ? bytes : nil
    }

    private static func equalIgnoringASCIICase(_ left: Substring, _ right: Substring) -> Bool {
        left.utf8.count == right.utf8.count && zip(left.utf8, right.utf8).allSatisfy { lowercased($0) == lowercased($1) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte }
    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private static func isLetterLike(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(lowercased(byte)) || byte == UInt8(ascii: "*") || byte == UInt8(ascii: "_")
    }
    private static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(lowercased(byte)) }
}
