/// What may stand where a host is expected: a DNS host name or an IP address.
public enum HostName {
    /// True for an IPv4 or IPv6 address, or a host name of dot-separated labels (letters, digits and
    /// hyphens, 1 to 63 characters, no hyphen at either end; 253 characters at most). Empty is not a host.
    public static func isValid(_ text: String) -> Bool {
        if IPAddress.isAddress(text) { return true }
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.count) && label.allSatisfy(allowed.contains) && label.first != "-" && label.last != "-"
        }
    }
}
