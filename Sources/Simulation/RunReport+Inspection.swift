import Foundation
import PKI

extension RunReport {
    /// One field of a certificate as shown to the client and as the real server sends it.
    public struct FieldComparison: Sendable, Equatable {
        public let name: String
        public let shown: String?
        public let real: String?
        public var differs: Bool { shown != real }
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
                return FieldComparison(name: left?.name ?? right?.name ?? "", shown: left?.value, real: right?.value)
            }
        }
    }

    private static func fields(_ certificate: Certificate) -> [(name: String, value: String)] {
        [
            ("label", certificate.label), ("subject", certificate.subject.description), ("issuer", certificate.issuer.description),
            ("SAN", (certificate.dnsNames + certificate.ipAddresses).joined(separator: ", ")),
            ("valid", "\(certificate.notBefore.formatted(.iso8601.year().month().day())) to \(certificate.notAfter.formatted(.iso8601.year().month().day()))"),
            ("key", certificate.keyDescription), ("SPKI pin", certificate.publicKeyPin), ("SHA-256", String(certificate.sha256Hex.prefix(32)) + "…"),
        ]
    }
}
