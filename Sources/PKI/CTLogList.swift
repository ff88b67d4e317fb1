internal import COpenSSL
import Foundation

/// The Certificate Transparency logs a device knows (Apple ships such a list and updates it), held as OpenSSL's
/// `CTLOG_STORE`: every SCT is checked by OpenSSL's own CT code (`SCT_LIST_validate`), never by hand.
// @unchecked: the store is built in init and only read afterwards (`CTLOG_STORE_get0_log_by_id` during validation);
// `judged` is read and written only while `lock` is held.
public final class CTLogList: @unchecked Sendable {
    /// How OpenSSL judged one embedded SCT.
    public struct Validation: Sendable {
        public enum Status: String, Sendable {
            /// The known log's key verifies its signature over this certificate, and its time is not after the check's.
            case valid
            /// A known log's SCT whose signature does not verify (or whose time is in the future).
            case invalid
            /// From a log the device does not know.
            case unknownLog
            /// OpenSSL could not check it (no issuer to hash, an unreadable certificate).
            case unverified
            case unknownVersion
        }

        public let logID: [UInt8]
        public let timestamp: UInt64
        /// The known log it names; nil when the device knows none with its id.
        public let log: KnownLog?
        public let status: Status

        public var date: Date { Date(timeIntervalSince1970: TimeInterval(timestamp / 1000)) }
    }

    public let logs: [KnownLog]
    private let store: OpaquePointer

    /// What OpenSSL found for a leaf, its issuer and a time, by their DER and the time in milliseconds: a matrix or an
    /// audit judges the same chain under every policy, and each judging copies the leaf for every SCT it carries.
    /// The same three with the same logs are judged the same. Bounded: emptied at `keptJudgements` entries.
    private struct Judged: Hashable {
        let leaf: [UInt8], issuer: [UInt8], time: UInt64
    }
    private static let keptJudgements = 1024
    private let lock = NSLock()
    private var judged: [Judged: [Validation]] = [:]

    public init(_ logs: [KnownLog]) throws {
        self.logs = logs
        store = try Self.makeStore(logs)
    }

    deinit { CTLOG_STORE_free(store) }

    /// OpenSSL has no call that adds one log to a store, only `CTLOG_STORE_load_file`: the list is written to a private
    /// temporary file in OpenSSL's log-list format (a section per log, its key in base64 DER), loaded, and removed.
    private static func makeStore(_ logs: [KnownLog]) throws -> OpaquePointer {
        try OpenSSL.isolatingErrors {
            guard let store = CTLOG_STORE_new_ex(CertificateReadingContext.shared, nil) else { throw OpenSSL.failure("CTLOG_STORE_new_ex") }
            guard !logs.isEmpty else { return store }
            let sections = logs.indices.map { "log\($0)" }
            let text =
                "enabled_logs = \(sections.joined(separator: ","))\n"
                + zip(sections, logs).map { "[\($0)]\ndescription = \($0)\nkey = \(Data($1.publicKeyInfo).base64EncodedString())\n" }.joined()
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("mitmsim-ct-\(UUID().uuidString).cnf").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: [.withoutOverwriting])
            } catch {
                CTLOG_STORE_free(store)
                throw PKIError.cannotWrite(path: path, reason: "\(error)")
            }
            guard CTLOG_STORE_load_file(store, path) == 1 else {
                CTLOG_STORE_free(store)
                throw OpenSSL.failure("CTLOG_STORE_load_file")
            }
            return store
        }
    }

    /// The SCTs embedded in `leaf` (its SCT list extension), each judged by OpenSSL against these logs for `issuer`'s
    /// key at `date`: `CT_POLICY_EVAL_CTX` with the leaf, the issuer, this store and the time, then `SCT_LIST_validate`
    /// and `SCT_get_validation_status`. Empty when the leaf carries no SCT list (or one OpenSSL cannot read).
    public func validate(_ leaf: Certificate, issuer: Certificate, at date: Date) -> [Validation] {
        let time = UInt64(max(0, date.timeIntervalSince1970.rounded(.down))) * 1000
        let key = Judged(leaf: leaf.der, issuer: issuer.der, time: time)
        if let kept = lock.withLock({ judged[key] }) { return kept }
        let validations = judge(leaf, issuer: issuer, time: time)
        lock.withLock {
            if judged.count >= Self.keptJudgements { judged.removeAll(keepingCapacity: true) }
            judged[key] = validations
        }
        return validations
    }

    private func judge(_ leaf: Certificate, issuer: Certificate, time: UInt64) -> [Validation] {
        OpenSSL.isolatingErrors {
            guard let raw = X509_get_ext_d2i(leaf.x509, NID_ct_precert_scts, nil, nil) else { return [] }
            let list = OpaquePointer(raw)
            defer { SCT_LIST_free(list) }
            guard let context = CT_POLICY_EVAL_CTX_new_ex(CertificateReadingContext.shared, nil) else { return [] }
            defer { CT_POLICY_EVAL_CTX_free(context) }
            guard CT_POLICY_EVAL_CTX_set1_cert(context, leaf.x509) == 1, CT_POLICY_EVAL_CTX_set1_issuer(context, issuer.x509) == 1 else { return [] }
            CT_POLICY_EVAL_CTX_set_shared_CTLOG_STORE(context, store)
            CT_POLICY_EVAL_CTX_set_time(context, time)
            // Negative only on an internal error; each SCT's status says what was found.
            _ = SCT_LIST_validate(list, context)
            return (0..<OPENSSL_sk_num(list)).compactMap { index in
                guard let sct = OPENSSL_sk_value(list, index).map(OpaquePointer.init) else { return nil }
                var idPointer: UnsafeMutablePointer<UInt8>? = nil
                let length = SCT_get0_log_id(sct, &idPointer)
                let id = idPointer.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
                return Validation(
                    logID: id, timestamp: SCT_get_timestamp(sct), log: logs.first { $0.logID == id }, status: Self.status(SCT_get_validation_status(sct)))
            }
        }
    }

    private static func status(_ status: sct_validation_status_t) -> Validation.Status {
        switch status {
        case SCT_VALIDATION_STATUS_VALID: .valid
        case SCT_VALIDATION_STATUS_INVALID: .invalid
        case SCT_VALIDATION_STATUS_UNKNOWN_LOG: .unknownLog
        case SCT_VALIDATION_STATUS_UNKNOWN_VERSION: .unknownVersion
        default: .unverified
        }
    }
}
