import Foundation

extension Certificate {
    /// Uppercase, colon-separated SHA-256, as `openssl x509 -fingerprint -sha256` prints it.
    public var sha256FingerprintText: String {
        sha256Fingerprint.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined(separator: ":")
    }

    /// A readable card: who it names, who signed it, for which hosts, when, with which key, and its pins.
    public var summary: String {
        let names = dnsNames.map { "DNS:" + $0 } + ipAddresses.map { "IP:" + $0 }
        let rows: [(String, String)] = [
            ("subject", subject.description),
            ("issuer", issuer.description + (isSelfIssued ? " (self-issued)" : "")),
            ("SAN", names.isEmpty ? "(none)" : names.joined(separator: ", ")),
            ("valid", "\(notBefore.utcTimestamp) to \(notAfter.utcTimestamp)"),
            ("key", keyDescription),
            ("CA", isAuthority ? "yes" : "no"),
            ("SHA-256", sha256FingerprintText),
            ("SPKI pin", publicKeyPin),
        ]
        // The label, names and subject come from the file, so each row is escaped as one line.
        return (["'\(label)'"] + rows.map { "  " + $0.0.padding(toLength: 9, withPad: " ", startingAt: 0) + $0.1 }).map { TerminalText.escaped($0) }
            .joined(separator: "\n")
    }
}
