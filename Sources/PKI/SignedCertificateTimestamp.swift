import Foundation

/// An RFC 6962 (v1) Signed Certificate Timestamp: a log's promise to publish a (pre)certificate.
public struct SignedCertificateTimestamp: Hashable, Sendable {
    /// SHA-256 of the log's SubjectPublicKeyInfo (RFC 6962 §3.2 `LogID`).
    public let logID: [UInt8]
    /// Milliseconds since the Unix epoch, as the SCT carries it.
    public let timestamp: UInt64
    /// The log's ECDSA (SHA-256) signature, DER, over `CTLog.signedData(…)`.
    public let signature: [UInt8]

    public init(logID: [UInt8], timestamp: UInt64, signature: [UInt8]) {
        self.logID = logID
        self.timestamp = timestamp
        self.signature = signature
    }

    /// The SCT's moment as a date.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(timestamp / 1000)) }

    /// The TLS encoding of RFC 6962 §3.2's `SignedCertificateTimestamp`: version v1, the log id, the timestamp, no
    /// extensions, and a `digitally-signed` struct naming SHA-256 (4) with ECDSA (3).
    public var serialized: [UInt8] {
        [0] + logID + TLSEncoding.uint(timestamp, bytes: 8) + TLSEncoding.vector([], lengthBytes: 2) + [4, 3]
            + TLSEncoding.vector(signature, lengthBytes: 2)
    }

    /// The value of the SCT list extension (1.3.6.1.4.1.11129.2.4.2): a DER OCTET STRING holding RFC 6962 §3.3's
    /// `SignedCertificateTimestampList`, each SCT a vector of its own.
    static func listExtensionValue(_ timestamps: [SignedCertificateTimestamp]) -> [UInt8] {
        let list = TLSEncoding.vector(timestamps.flatMap { TLSEncoding.vector($0.serialized, lengthBytes: 2) }, lengthBytes: 2)
        return DEREncoding.octetString(list)
    }
}

/// The TLS presentation language's integers and vectors (RFC 5246 §4), as RFC 6962 writes its structures.
enum TLSEncoding {
    /// `value` in `bytes` bytes, big-endian.
    static func uint(_ value: UInt64, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// `bytes` preceded by their length in `lengthBytes` bytes.
    static func vector(_ bytes: [UInt8], lengthBytes: Int) -> [UInt8] {
        uint(UInt64(bytes.count), bytes: lengthBytes) + bytes
    }
}

/// The one DER form the SCT list extension needs.
enum DEREncoding {
    /// An OCTET STRING: tag 4, the definite length (short form below 128, long form above), the bytes.
    static func octetString(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 128 else { return [4, UInt8(bytes.count)] + bytes }
        let length = TLSEncoding.uint(UInt64(bytes.count), bytes: 8).drop { $0 == 0 }
        return [4, 0x80 | UInt8(length.count)] + length + bytes
    }
}
