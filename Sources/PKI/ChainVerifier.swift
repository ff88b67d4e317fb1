internal import COpenSSL
import Foundation

/// Runs OpenSSL's `X509_verify_cert` for a `ServerTrust` and turns what it found into a `TrustResult`.
///
/// The verify callback records every error and lets verification go on, so a learner sees all that is
/// wrong with a chain (expired *and* for another host), not only the first thing OpenSSL tripped on.
struct ChainVerifier {
    let trust: ServerTrust
    /// One path to verify alone, leaf first and ending at one of the anchors (`ServerTrust.anchoredPaths()`), or nil to let
    /// OpenSSL build the path from everything the evaluation can reach.
    var candidate: [Certificate]? = nil

    func verify() -> TrustResult {
        // Verification reports through the callback, never through the error queue: whatever OpenSSL
        // queues on the way is popped, and errors queued before are left as they were.
        OpenSSL.isolatingErrors(verifyWithQueueIsolated)
    }

    /// Where the verify callback finds this verification's `ErrorRecorder`: a slot allocated once, so it
    /// can never be one OpenSSL or another library uses (the SSL layer's own slot is usually 0).
    static let recorderSlot: Int32 = {
        let slot = COpenSSL_X509_STORE_CTX_get_ex_new_index()
        // Allocating an index only fails when OpenSSL is out of memory.
        precondition(slot >= 0, "X509_STORE_CTX_get_ex_new_index failed: out of memory")
        return slot
    }()

    private func verifyWithQueueIsolated() -> TrustResult {
        // Each of these fails only when OpenSSL cannot allocate memory; there is nothing to report then.
        guard let store = X509_STORE_new(), let context = X509_STORE_CTX_new(), let untrusted = OPENSSL_sk_new_null() else {
            preconditionFailure("OpenSSL could not allocate a verification context: \(OpenSSL.drainErrors())")
        }
        defer {
            X509_STORE_CTX_free(context)
            OPENSSL_sk_free(untrusted)
            X509_STORE_free(store)
        }
        // SecTrust ends the path at the first anchor met from the leaf up. OpenSSL's partial-chain match
        // would swap in the pinned leaf but keep checking the sent issuers above it, so a pinned leaf is
        // verified alone. (A pinned issuer already ends OpenSSL's path: it looks in the store first.)
        let leafIsAnchor = trust.hasCustomAnchors && trust.anchorCertificates.contains(trust.leaf)
        let anchors = candidate.map { Array($0.suffix(1)) } ?? (leafIsAnchor ? [trust.leaf] : trust.anchorCertificates)
        for anchor in anchors {
            // Adding a certificate already in the store succeeds; only allocation can fail.
            precondition(X509_STORE_add_cert(store, anchor.verifiableX509) == 1, "X509_STORE_add_cert failed: out of memory")
        }
        // A certificate installed without full trust is on the device, so a path can reach it (and stop there, untrusted).
        let reachable =
            candidate.map { Array($0.dropFirst().dropLast()) }
            ?? Array(trust.certificates.dropFirst() + (trust.hasCustomAnchors ? [] : trust.deviceTrustStore.installedWithoutFullTrust))
        for certificate in reachable where !leafIsAnchor {
            precondition(OPENSSL_sk_push(untrusted, UnsafeRawPointer(certificate.verifiableX509)) > 0, "OPENSSL_sk_push failed: out of memory")
        }
        precondition(X509_STORE_CTX_init(context, store, trust.leaf.verifiableX509, untrusted) == 1, "X509_STORE_CTX_init failed: out of memory")
        configure(context)

        let recorder = ErrorRecorder()
        // Unretained is safe: `recorder` outlives X509_verify_cert (withExtendedLifetime), the only caller of the callback.
        precondition(
            X509_STORE_CTX_set_ex_data(context, Self.recorderSlot, Unmanaged.passUnretained(recorder).toOpaque()) == 1,
            "X509_STORE_CTX_set_ex_data failed: out of memory")
        X509_STORE_CTX_set_verify_cb(context) { ok, context in
            guard ok == 0, let context, let raw = X509_STORE_CTX_get_ex_data(context, ChainVerifier.recorderSlot) else { return ok }
            if ChainVerifier.isAnyPurposeAuthority(context) { return 1 }
            let recorder = Unmanaged<ErrorRecorder>.fromOpaque(raw).takeUnretainedValue()
            recorder.errors.append((X509_STORE_CTX_get_error(context), X509_STORE_CTX_get_current_cert(context)))
            return 1
        }
        let status = withExtendedLifetime(recorder) { X509_verify_cert(context) }
        if status != 1, recorder.errors.isEmpty {
            recorder.errors.append((X509_STORE_CTX_get_error(context), X509_STORE_CTX_get_current_cert(context)))
        }

        if case .ssl(let host?) = trust.policy, !HostNameMatcher.certificate(trust.leaf, names: host, commonNameFallback: trust.platform.readsCommonName) {
            // The host is matched as SecTrust matches it, not by OpenSSL (which, for one, takes an empty host
            // for no host at all). Reported where OpenSSL reports a host mismatch: before signatures and dates.
            let code = HostNameMatcher.addressBytes(host) == nil ? X509_V_ERR_HOSTNAME_MISMATCH : X509_V_ERR_IP_ADDRESS_MISMATCH
            let index = recorder.errors.firstIndex { Self.codesAfterHostCheck.contains($0.code) } ?? recorder.errors.endIndex
            recorder.errors.insert((code, trust.leaf.verifiableX509), at: index)
        }
        let chain = certificates(in: X509_STORE_CTX_get0_chain(context))
        var failures: [TrustFailure] = []
        for (code, x509) in recorder.errors {
            let certificate = x509.flatMap(certificate(for:)) ?? chain.last ?? trust.leaf
            if trust.platform.isApple, appleAccepts(code, certificate) { continue }
            var kind = kind(of: code)
            // Full trust is an iOS switch: elsewhere such a root is simply one the path may not end at.
            if kind == .untrustedRoot, trust.platform.isApple, trust.deviceTrustStore.installedWithoutFullTrust.contains(certificate) {
                kind = .installedWithoutFullTrust
            }
            let failure = TrustFailure(kind: kind, certificate: certificate, openSSLCode: code)
            if !failures.contains(failure) { failures.append(failure) }
        }
        // A leaf whose extended key usage already failed is not blamed a second time for lacking serverAuth.
        let wrongUsage = failures.contains { $0.kind == .wrongExtendedKeyUsage && $0.certificate == trust.leaf }
        for failure in AppleTLSRules(trust: trust).failures(path: chain) where !failures.contains(failure) {
            if case .missingServerAuthEKU = failure.kind, wrongUsage { continue }
            failures.append(failure)
        }
        if case .ssl(let host?) = trust.policy, let pins = trust.pinsForHost?(host) {
            failures += pins.failures(path: chain, host: host)
        }
        let anchor = chain.last.flatMap { top in trust.source(ofAnchor: top).map { (top, $0) } }
        // trustd judges CT on a path that passed everything else (`SecCertificatePathVCIsPathValidated`).
        let transparency = failures.isEmpty ? CertificateTransparencyVerdict.judge(trust, path: chain) : nil
        if let transparency, !transparency.isQualified {
            failures.append(
                TrustFailure(kind: .certificateTransparencyRequired(required: transparency.required, counted: transparency.counted), certificate: trust.leaf))
        }
        return TrustResult(
            path: failures.isEmpty ? chain : Self.signedPrefix(of: chain), failures: failures, anchor: anchor, transparency: transparency)
    }

    /// True when OpenSSL refused a CA's purpose although its extended key usage includes
    /// anyExtendedKeyUsage, which Apple accepts for a TLS chain's authorities (OpenSSL wants serverAuth).
    private static func isAnyPurposeAuthority(_ context: OpaquePointer) -> Bool {
        guard X509_STORE_CTX_get_error(context) == X509_V_ERR_INVALID_PURPOSE, X509_STORE_CTX_get_error_depth(context) > 0,
            let certificate = X509_STORE_CTX_get_current_cert(context)
        else { return false }
        // Only an EKU that lists any purpose, on a certificate that is otherwise fit to be a CA.
        return X509_get_extension_flags(certificate) & UInt32(EXFLAG_XKUSAGE) != 0
            && X509_get_extended_key_usage(certificate) & UInt32(XKU_ANYEKU) != 0 && X509_check_ca(certificate) != 0
    }

    /// True where Apple accepts what OpenSSL refused: a certificate at the very second of its notAfter (`SecCertificateIsValid`
    /// counts `verifyTime <= notAfter` as valid; OpenSSL's `X509_cmp_time` counts it expired), and a leaf OpenSSL's sslserver
    /// purpose refused for its keyUsage or for being a CA, when its extended key usage suits Apple's SSL policy (`set_ssl_ekus`).
    private func appleAccepts(_ code: Int32, _ certificate: Certificate) -> Bool {
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED: trust.verifyDate <= certificate.notAfter
        case X509_V_ERR_INVALID_PURPOSE: certificate == trust.leaf && certificate.extendedKeyUsageAllowsTLSServer
        default: false
        }
    }

    /// What `X509_verify_cert` finds after it checks the host: signatures, dates, name constraints, policies.
    private static let codesAfterHostCheck: Set<Int32> = [
        X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_SIGNATURE_ALGORITHM_MISMATCH, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE,
        X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY,
        X509_V_ERR_CERT_NOT_YET_VALID, X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD,
        X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD, X509_V_ERR_PERMITTED_VIOLATION, X509_V_ERR_EXCLUDED_VIOLATION,
        X509_V_ERR_SUBTREE_MINMAX, X509_V_ERR_UNSUPPORTED_CONSTRAINT_TYPE, X509_V_ERR_UNSUPPORTED_CONSTRAINT_SYNTAX,
        X509_V_ERR_UNSUPPORTED_NAME_SYNTAX, X509_V_ERR_INVALID_POLICY_EXTENSION, X509_V_ERR_NO_EXPLICIT_POLICY,
    ]

    private func configure(_ context: OpaquePointer) {
        // The context owns its parameters from X509_STORE_CTX_init on; these fail only when out of memory.
        guard let parameters = X509_STORE_CTX_get0_param(context) else { preconditionFailure("X509_STORE_CTX_init made no parameters") }
        X509_VERIFY_PARAM_set_time(parameters, time_t(trust.verifyDate.timeIntervalSince1970))
        if trust.hasCustomAnchors {
            precondition(X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)) == 1, "X509_VERIFY_PARAM_set_flags failed")
        }
        guard case .ssl = trust.policy else { return }
        // The host name is not given to OpenSSL: HostNameMatcher checks it after verification, as Apple does.
        precondition(X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SSL_SERVER) == 1, "X509_STORE_CTX_set_purpose(SSL server) failed")
    }

    private func kind(of code: Int32) -> TrustFailure.Kind {
        switch code {
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN: .untrustedRoot
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            .missingIssuer
        case X509_V_ERR_CERT_HAS_EXPIRED: .expired
        case X509_V_ERR_CERT_NOT_YET_VALID: .notYetValid
        case X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD, X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD: .unreadableValidity
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            .hostnameMismatch(host: hostName, commonNameReader: trust.platform.readsCommonName ? trust.platform : nil)
        case X509_V_ERR_INVALID_CA: .issuerNotCA
        case X509_V_ERR_KEYUSAGE_NO_CERTSIGN: .keyUsageForbidsCertificateSigning
        case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE: .badSignature
        case X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY, X509_V_ERR_NO_ISSUER_PUBLIC_KEY, X509_V_ERR_UNSUPPORTED_SIGNATURE_ALGORITHM,
            X509_V_ERR_SIGNATURE_ALGORITHM_MISMATCH:
            .unsupportedSignatureAlgorithm
        case X509_V_ERR_SIGNATURE_ALGORITHM_INCONSISTENCY: .inconsistentSignatureAlgorithm
        case X509_V_ERR_INVALID_PURPOSE: .wrongExtendedKeyUsage
        case X509_V_ERR_PATH_LENGTH_EXCEEDED: .pathLengthExceeded
        case X509_V_ERR_CERT_CHAIN_TOO_LONG: .pathTooLong
        case X509_V_ERR_PATH_LOOP: .pathLoop
        case X509_V_ERR_PERMITTED_VIOLATION, X509_V_ERR_EXCLUDED_VIOLATION: .nameConstraintViolation
        case X509_V_ERR_SUBTREE_MINMAX, X509_V_ERR_UNSUPPORTED_CONSTRAINT_TYPE, X509_V_ERR_UNSUPPORTED_CONSTRAINT_SYNTAX,
            X509_V_ERR_UNSUPPORTED_NAME_SYNTAX:
            .unsupportedNameConstraint
        case X509_V_ERR_INVALID_POLICY_EXTENSION, X509_V_ERR_NO_EXPLICIT_POLICY: .policyViolation
        case X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION: .unsupportedCriticalExtension
        case X509_V_ERR_INVALID_EXTENSION, X509_V_ERR_UNSUPPORTED_EXTENSION_FEATURE, X509_V_ERR_PATHLEN_INVALID_FOR_NON_CA,
            X509_V_ERR_PATHLEN_WITHOUT_KU_KEY_CERT_SIGN, X509_V_ERR_KU_KEY_CERT_SIGN_INVALID_FOR_NON_CA:
            .invalidExtension
        default: .other(code: code, message: OpenSSL.verifyErrorText(code))
        }
    }

    private var hostName: String {
        if case .ssl(let host?) = trust.policy { return host }
        return "(none)"
    }

    /// Our `Certificate` objects for the X509s in OpenSSL's chain, keeping the labels the caller gave.
    private func certificates(in stack: OpaquePointer?) -> [Certificate] {
        guard let stack else { return [] }
        return (0..<OPENSSL_sk_num(stack)).compactMap { index in
            OPENSSL_sk_value(stack, index).flatMap { certificate(for: OpaquePointer($0)) }
        }
    }

    private func certificate(for x509: OpaquePointer) -> Certificate? {
        let known = trust.certificates + trust.anchorCertificates + trust.deviceTrustStore.installedWithoutFullTrust
        return known.first { $0.verifiableX509 == x509 } ?? known.first { X509_cmp($0.verifiableX509, x509) == 0 }
            ?? (try? Certificate(retaining: x509))
    }

    /// The leaf plus each next certificate whose key really signed the one before it.
    static func signedPrefix(of chain: [Certificate]) -> [Certificate] {
        guard var previous = chain.first else { return [] }
        var path = [previous]
        for next in chain.dropFirst() {
            guard previous.isSigned(by: next) else { break }
            path.append(next)
            previous = next
        }
        return path
    }
}

/// Collects verify-callback errors; reached from the C callback through `ChainVerifier.recorderSlot`.
private final class ErrorRecorder {
    var errors: [(code: Int32, certificate: OpaquePointer?)] = []
}
