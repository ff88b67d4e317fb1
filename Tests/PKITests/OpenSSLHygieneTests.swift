import COpenSSL
import Foundation
import Testing

@testable import PKI

/// How PKI shares OpenSSL's per-thread error queue and ex_data slots with the rest of the process.
struct OpenSSLHygieneTests {
    /// Leaves an error on this thread's queue the way unrelated code does: a failed parse nobody drained.
    /// Returns the oldest and newest codes it queued.
    func leaveAnUnrelatedError() -> (oldest: UInt, newest: UInt) {
        let junk: [UInt8] = [0x30, 0x82, 0xFF]
        junk.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            #expect(d2i_X509(nil, &cursor, buffer.count) == nil)
        }
        #expect(ERR_peek_error() != 0)
        return (ERR_peek_error(), ERR_peek_last_error())
    }

    func reason(_ code: UInt) -> String { ERR_reason_error_string(code).map { String(cString: $0) } ?? "?" }

    @Test func aFailingCallReportsOnlyItsOwnErrorsAndLeavesEarlierOnesInPlace() throws {
        defer { ERR_clear_error() }
        let unrelated = leaveAnUnrelatedError()
        var spec = CertificateSpec.authority(label: "bad", commonName: "bad", notBefore: clock, notAfter: clock.addingTimeInterval(86_400))
        spec.subject = DistinguishedName(attributes: [.init(type: "notAnAttribute", value: "x")])

        let error = try #require(throws: PKIError.self) { try factory.issue(spec, key: PrivateKey.generate()) }
        guard case .openSSL(let operation, let details) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(operation.hasPrefix("X509_NAME_add_entry_by_txt"))
        #expect(!details.isEmpty)
        #expect(!details.contains { $0.contains(reason(unrelated.oldest)) || $0.contains(reason(unrelated.newest)) }, "\(details)")
        #expect(
            ERR_peek_error() == unrelated.oldest && ERR_peek_last_error() == unrelated.newest,
            "the earlier errors are still there, and nothing of the failed call is")
    }

    @Test func aSucceedingCallLeavesTheQueueAsItFoundIt() throws {
        defer { ERR_clear_error() }
        let unrelated = leaveAnUnrelatedError()
        let root = try factory.makeIdentity(.authority(label: "Root", commonName: "Root", notBefore: clock, notAfter: clock.addingTimeInterval(86_400)))
        // Fails (no anchors), and queues nothing of its own.
        _ = ServerTrust(certificates: [root.certificate], deviceTrustStore: DeviceTrustStore(), verifyDate: clock).evaluate()
        #expect(ERR_peek_error() == unrelated.oldest && ERR_peek_last_error() == unrelated.newest)
    }

    @Test func theVerifierKeepsItsRecorderInASlotOfItsOwnNeitherAppDataNorTheSSLLayers() {
        #expect(ChainVerifier.recorderSlot != 0, "slot 0 is X509_STORE_CTX_set_app_data's")
        #expect(ChainVerifier.recorderSlot != SSL_get_ex_data_X509_STORE_CTX_idx())
    }

    @Test(arguments: [("-nocerts", "no certificate that matches"), ("-nokeys", "no private key")])
    func aP12MissingHalfAnIdentityIsABadPKCS12ErrorSayingWhich(option: String, missing: String) throws {
        let directory = TemporaryDirectory()
        let identity = try factory.makeIdentity(
            .serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: clock, notAfter: clock.addingTimeInterval(86_400)))
        try identity.certificate.write(to: directory.file("leaf.pem"))
        try identity.privateKey.write(to: directory.file("leaf.key"))
        _ = try shell(
            "openssl pkcs12 -export \(option) -in \(directory.file("leaf.pem")) -inkey \(directory.file("leaf.key")) -passout pass:secret -out \(directory.file("half.p12"))"
        )

        let error = try #require(throws: PKIError.self) { try Identity.load(pkcs12Path: directory.file("half.p12"), password: "secret") }
        guard case .badPKCS12(let path, let detail) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(path == directory.file("half.p12"))
        #expect(detail.contains(missing), "\(detail)")
    }
}
