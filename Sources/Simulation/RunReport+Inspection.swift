import Foundation
import PKI

extension RunReport {
    /// One field of a certificate as shown to the client and as the real server sends it.
    public struct FieldComparison: Sendable, Equatable {
        public let name: String
        public let shown: String?
        public let real: String?
        /// Computed on what the field stands for (the key itself for `key`), not on its wording.
        public let differs: Bool
    }

    /// Position by position down the two chains, the fields of the certificate the client was shown next
    /// to the real server's: what the inspector lays out, with `differs` marking what an attacker changed.
    public var certificateComparison: [[FieldComparison]] {
        (0..<max(presentedChain.count, realChain.count)).map { index in
            let shown = presentedChain.indices.contains(index) ? Self.fields(presentedChain[index]) : []
            let real = realChain.indices.contains(index) ? Self.fields(realChain[index]) : []
            return (0..<max(shown.count, real.count)).map { line in
                let left = shown.indices.contains(line) ? shown[line] : nil
                let right = real.indices.contains(line) ? real[line] : nil
                return FieldComparison(
                    name: left?.name ?? right?.name ?? "", shown: left?.value, real: right?.value,
                    differs: left?.identity != right?.identity || left?.value != right?.value)
            }
        }
    }

    /// Each field's words and, where the words could hide a difference, the bytes it stands for: two keys of
    /// the same type read alike, so the key row carries its SPKI's fingerprint and compares the SPKI itself.
    private static func fields(_ certificate: Certificate) -> [(name: String, value: String, identity: [UInt8]?)] {
        [
            ("label", certificate.label, nil), ("subject", certificate.subject.description, nil), ("issuer", certificate.issuer.description, nil),
            ("SAN", (certificate.dnsNames + certificate.ipAddresses).joined(separator: ", "), nil),
            (
                "valid",
                "\(certificate.notBefore.formatted(.iso8601.year().month().day())) to \(certificate.notAfter.formatted(.iso8601.year().month().day()))",
                nil
            ),
            ("key", "\(certificate.keyDescription), SPKI sha256 \(certificate.publicKeySHA256Base64.prefix(10))…", certificate.publicKeyInfo),
            ("SPKI pin", certificate.publicKeyPin, certificate.publicKeyInfo), ("SHA-256", String(certificate.sha256Hex.prefix(32)) + "…", certificate.der),
        ]
    }
}
