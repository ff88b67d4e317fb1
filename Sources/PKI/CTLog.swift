internal import COpenSSL
import Foundation

/// A Certificate Transparency log running inside mitmsim: its own P-256 key, the roots it accepts, and every
/// precertificate it was given, each answered with an RFC 6962 (v1) SCT signed with its key.
///
/// It keeps entries in memory, as a real log's Merkle tree keeps them in public: what a monitor reads back.
// @unchecked: the entries are guarded by `lock`; everything else is a constant.
public final class CTLog: @unchecked Sendable {
    /// One precertificate the log accepted.
    public struct Entry: Sendable {
        public let precertificate: Certificate
        /// The certificate that signed it, as submitted.
        public let issuer: Certificate
        public let timestamp: SignedCertificateTimestamp
    }

    public let listing: KnownLog
    /// The roots a submitted chain must end at (RFC 6962 §3.1: a log accepts chains to roots it accepts).
    public let acceptedRoots: [Certificate]
    /// The log's signing key: a lab exports it with its PKI, so a restarted lab keeps its logs and the SCTs they signed.
    public let key: PrivateKey
    private let lock = NSLock()
    private var accepted: [Entry] = []

    public init(name: String, operatorName: String, acceptedRoots: [Certificate], key: PrivateKey? = nil) throws {
        let key = try key ?? PrivateKey.generate(.p256)
        self.key = key
        self.acceptedRoots = acceptedRoots
        listing = KnownLog(name: name, operatorName: operatorName, publicKeyInfo: try key.publicKeyInfo())
    }

    public var name: String { listing.name }

    /// Every entry accepted so far, in order.
    public var entries: [Entry] { lock.withLock { accepted } }

    /// Accepts `precertificate` (it must carry the critical poison extension) when `chain` (its issuer first)
    /// links it, signature by signature, to a root the log accepts; returns the SCT for it, timestamped `date`.
    public func submit(precertificate: Certificate, chain: [Certificate], at date: Date) throws -> SignedCertificateTimestamp {
        try submit(precertificate: precertificate, signing: { try precertificate.tbsWithoutPoison() }, chain: chain, at: date)
    }

    /// As above, with what the log signs over worked out by `tbs` (the precertificate's TBSCertificate without the
    /// poison): a factory that submits one precertificate to several logs works it out once, since each working out
    /// copies the whole certificate.
    func submit(precertificate: Certificate, signing tbs: () throws -> [UInt8], chain: [Certificate], at date: Date) throws
        -> SignedCertificateTimestamp
    {
        func refuse(_ reason: String) -> PKIError { .ctSubmissionRefused(log: name, reason: reason) }
        guard precertificate.isPrecertificate else { throw refuse("'\(precertificate.label)' carries no critical poison extension") }
        guard let issuer = chain.first else { throw refuse("no issuer was submitted with '\(precertificate.label)'") }
        var child = precertificate
        for parent in chain {
            guard child.isSigned(by: parent) else { throw refuse("'\(child.label)' is not signed by '\(parent.label)'") }
            child = parent
        }
        guard acceptedRoots.contains(child) || acceptedRoots.contains(where: { child.isSigned(by: $0) }) else {
            throw refuse("the chain of '\(precertificate.label)' ends at '\(child.label)', a root this log does not accept")
        }
        let timestamp = UInt64(max(0, date.timeIntervalSince1970.rounded(.down))) * 1000
        let signed = Self.signedData(timestamp: timestamp, issuer: issuer, tbs: try tbs())
        let sct = SignedCertificateTimestamp(logID: listing.logID, timestamp: timestamp, signature: try key.signSHA256(signed))
        lock.withLock { accepted.append(Entry(precertificate: precertificate, issuer: issuer, timestamp: sct)) }
        return sct
    }

    /// RFC 6962 §3.2's `digitally-signed` struct for a precertificate entry: version v1 (0), signature type
    /// certificate_timestamp (0), the timestamp, entry type precert_entry (1), the issuer's key hash (SHA-256 of its
    /// SubjectPublicKeyInfo), the TBSCertificate without the poison extension (a 24-bit vector), and no extensions.
    static func signedData(timestamp: UInt64, issuer: Certificate, tbs: [UInt8]) -> [UInt8] {
        [0, 0] + TLSEncoding.uint(timestamp, bytes: 8) + TLSEncoding.uint(1, bytes: 2) + OpenSSL.sha256(issuer.publicKeyInfo)
            + TLSEncoding.vector(tbs, lengthBytes: 3) + TLSEncoding.vector([], lengthBytes: 2)
    }
}

extension Certificate {
    /// True when it carries the critical precertificate poison extension (1.3.6.1.4.1.11129.2.4.3).
    public var isPrecertificate: Bool {
        let index = X509_get_ext_by_NID(x509, NID_ct_precert_poison, -1)
        return index >= 0 && X509_EXTENSION_get_critical(X509_get_ext(x509, index)) == 1
    }

    /// The DER TBSCertificate with the poison extension taken out: what a log signs for a precertificate.
    func tbsWithoutPoison() throws -> [UInt8] {
        try OpenSSL.isolatingErrors {
            let copy = try CertificateReadingContext.copy(x509)
            defer { X509_free(copy) }
            let index = X509_get_ext_by_NID(copy, NID_ct_precert_poison, -1)
            if index >= 0 { X509_EXTENSION_free(X509_delete_ext(copy, index)) }
            return try OpenSSL.encode({ i2d_re_X509_tbs(copy, $0) }, "i2d_re_X509_tbs")
        }
    }
}
