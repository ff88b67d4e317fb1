import PKI

extension AppTransportSecurity {
    /// Which of the Info.plist's settings govern one host.
    public enum Scope: Sendable, Equatable {
        /// The app is linked against an SDK older than iOS 9: ATS does not exist for it.
        case notLinked
        /// `NSAllowsArbitraryLoads` is YES and no `NSExceptionDomains` entry covers the host: ATS is off for it.
        case arbitraryLoads
        /// An `NSExceptionDomains` entry covers the host: its keys decide, and `NSAllowsArbitraryLoads` does not
        /// apply. `domain` is the entry's name as written; it differs from the host for a subdomain.
        case exception(domain: String, ExceptionDomain)
        /// ATS fully on, with Apple's defaults.
        case defaults
    }

    /// The settings that govern `host`: an `NSExceptionDomains` entry naming it (in any case), else one naming
    /// its parent with `NSIncludesSubdomains` YES, else `NSAllowsArbitraryLoads`, else ATS's defaults.
    ///
    /// Apple's documentation of `NSIncludesSubdomains`: the entry covers "all subdomains of the domain that
    /// have one additional path component" (`math.example.com`, not `advanced.math.example.com`), and has no
    /// effect on an entry for an IP address.
    public func scope(forHost host: String) -> Scope {
        if linkedBeforeIOS9 { return .notLinked }
        let name = host.lowercased()
        // Sorted, so two entries differing only in case resolve the same way every run.
        let entries = exceptionDomains.sorted { $0.key < $1.key }
        if let (domain, entry) = entries.first(where: { $0.key.lowercased() == name }) {
            return .exception(domain: domain, entry)
        }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        if !CertificateSpec.isIPAddress(host), labels.count > 1 {
            let parent = labels.dropFirst().joined(separator: ".")
            if let (domain, entry) = entries.first(where: { $0.key.lowercased() == parent && $0.value.includesSubdomains }) {
                return .exception(domain: domain, entry)
            }
        }
        return allowsArbitraryLoads ? .arbitraryLoads : .defaults
    }
}

extension TLSVersion {
    /// How `NSExceptionMinimumTLSVersion` spells the version: `TLSv1.0` … `TLSv1.3`.
    public var infoPlistValue: String {
        switch self {
        case .tls10: "TLSv1.0"
        case .tls11: "TLSv1.1"
        case .tls12: "TLSv1.2"
        case .tls13: "TLSv1.3"
        }
    }

    /// The version an `NSExceptionMinimumTLSVersion` value names, or nil when it names none.
    public init?(infoPlistValue: String) {
        guard let version = Self.allCases.first(where: { $0.infoPlistValue == infoPlistValue }) else { return nil }
        self = version
    }
}

/// ATS's checks on one connection, each a trace step with the rejection it causes when it fails.
///
/// Sentences name the Info.plist key and value that decided, so a learner can find the line to change.
struct ATSRules {
    let scope: AppTransportSecurity.Scope
    let host: String
    let allowsArbitraryLoads: Bool

    init(_ ats: AppTransportSecurity, host: String) {
        scope = ats.scope(forHost: host)
        self.host = host
        allowsArbitraryLoads = ats.allowsArbitraryLoads
    }

    /// A step and, when it failed, why the load is refused.
    typealias Outcome = (step: TraceStep, rejection: RejectionReason?)

    /// Why ATS checks nothing on this host, or nil when it does.
    var offReason: String? {
        switch scope {
        case .notLinked: "the app is linked against an SDK older than iOS 9, so ATS does not exist for it"
        case .arbitraryLoads: "NSAllowsArbitraryLoads is YES and no NSExceptionDomains entry covers '\(host)', so ATS does not apply"
        case .exception, .defaults: nil
        }
    }

    /// "the NSExceptionDomains entry 'bank.test'", saying how it covers a subdomain.
    private func entryName(_ domain: String) -> String {
        domain.lowercased() == host.lowercased()
            ? "the NSExceptionDomains entry '\(domain)'"
            : "the NSExceptionDomains entry '\(domain)' (which covers '\(host)' with NSIncludesSubdomains YES)"
    }

    // MARK: - Before any connection

    /// `http://`: refused unless ATS is off for the host or its entry allows insecure loads.
    func plainHTTP() -> Outcome {
        let goesOut = "http:// is allowed: the request goes out in plain text"
        if let offReason { return (TraceStep(.atsScheme, .passed, "\(offReason): \(goesOut)"), nil) }
        switch scope {
        case .notLinked, .arbitraryLoads:
            preconditionFailure("offReason covers ATS being off")
        case .exception(let domain, let entry) where entry.allowsInsecureHTTPLoads:
            return (TraceStep(.atsScheme, .passed, "NSExceptionAllowsInsecureHTTPLoads is YES in \(entryName(domain)), so \(goesOut)"), nil)
        case .exception(let domain, _):
            let arbitrary = allowsArbitraryLoads ? " (NSAllowsArbitraryLoads YES does not apply to a domain that has an entry)" : ""
            return (
                TraceStep(
                    .atsScheme, .failed,
                    "\(entryName(domain)) does not set NSExceptionAllowsInsecureHTTPLoads YES\(arbitrary), so ATS refuses http:// "
                        + "before connecting"),
                .atsRequiresSecureConnection
            )
        case .defaults:
            return (
                TraceStep(
                    .atsScheme, .failed,
                    "ATS requires https:// and neither NSAllowsArbitraryLoads nor an NSExceptionDomains entry allows http:// for '\(host)', "
                        + "so it refuses the load before connecting"),
                .atsRequiresSecureConnection
            )
        }
    }

    /// `https://`: what ATS asks for, or skipped when it is off.
    func secureScheme() -> TraceStep {
        if let offReason { return TraceStep(.atsScheme, .skipped, offReason) }
        return TraceStep(.atsScheme, .passed, "the URL is https://, the secure connection ATS requires")
    }

    // MARK: - In the handshake

    func tlsVersion(_ negotiated: TLSVersion) -> Outcome {
        if let offReason { return (TraceStep(.atsTLSVersion, .skipped, offReason), nil) }
        let minimum: TLSVersion
        let because: String
        switch scope {
        case .exception(let domain, let entry):
            minimum = entry.minimumTLSVersion
            because = "NSExceptionMinimumTLSVersion is \(minimum.infoPlistValue) in \(entryName(domain))"
        default:
            minimum = .tls12
            because = "ATS requires at least TLS 1.2 and no NSExceptionDomains entry for '\(host)' lowers it"
        }
        guard negotiated >= minimum else {
            return (TraceStep(.atsTLSVersion, .failed, "\(negotiated.rawValue) was negotiated; \(because), so ATS refuses it"), .atsMinimumVersionViolation)
        }
        return (TraceStep(.atsTLSVersion, .passed, "\(negotiated.rawValue) was negotiated; \(because), so it is allowed"), nil)
    }

    func cipherSuite(_ negotiated: NegotiatedTLS) -> Outcome {
        if let offReason { return (TraceStep(.atsCipherSuite, .skipped, offReason), nil) }
        let suite = negotiated.cipherSuite
        if negotiated.version == .tls13 {
            return (TraceStep(.atsCipherSuite, .passed, "\(suite) is a TLS 1.3 suite: every one is forward secret, and ATS accepts them"), nil)
        }
        let forwardSecretAES = suite.hasPrefix("TLS_ECDHE_ECDSA_WITH_AES_") || suite.hasPrefix("TLS_ECDHE_RSA_WITH_AES_")
        if case .exception(let domain, let entry) = scope, !entry.requiresForwardSecrecy {
            // Apple's list for this exception adds the TLS_RSA_WITH_AES_… suites to the ECDHE ones: AES stays required.
            let relaxed = "NSExceptionRequiresForwardSecrecy is NO in \(entryName(domain)), so a suite without forward secrecy is allowed if it uses AES"
            guard forwardSecretAES || suite.hasPrefix("TLS_RSA_WITH_AES_") else {
                return (TraceStep(.atsCipherSuite, .failed, "\(relaxed): \(suite) does not"), .atsCiphersuiteViolation)
            }
            return (TraceStep(.atsCipherSuite, .passed, "\(relaxed): \(suite) does"), nil)
        }
        guard forwardSecretAES else {
            return (
                TraceStep(.atsCipherSuite, .failed, "\(suite) is not a forward-secret ECDHE suite with AES, which ATS requires below TLS 1.3"),
                .atsCiphersuiteViolation
            )
        }
        return (TraceStep(.atsCipherSuite, .passed, "\(suite) is a forward-secret ECDHE suite with AES, as ATS requires"), nil)
    }

    /// The leaf the server presented: SHA-256 or better, and (unless forward secrecy is waived) RSA ≥ 2048 / EC ≥ 256.
    func certificateStrength(_ leaf: Certificate) -> Outcome {
        if let offReason { return (TraceStep(.atsCertificateStrength, .skipped, offReason), nil) }
        let digest = leaf.signatureDigest
        let hashHolds = ["SHA-256", "SHA-384", "SHA-512"].contains(digest)
        let signed = "signed with \(digest ?? "no SHA-2 digest")"
        var waiver: String? = nil
        if case .exception(let domain, let entry) = scope, !entry.requiresForwardSecrecy {
            waiver = "NSExceptionRequiresForwardSecrecy is NO in \(entryName(domain))"
        }
        let keyHolds = waiver != nil || leaf.keyIsAtLeast(rsa: 2048, ec: 256)
        let detail =
            waiver.map { "the leaf '\(leaf.label)' is \(signed) (its \(leaf.keyDescription) key is not checked because \($0)); ATS asks for SHA-256 or better" }
            ?? "the leaf '\(leaf.label)' has an \(leaf.keyDescription) key and is \(signed); ATS asks for SHA-256 or better and "
            + "an RSA key of at least 2048 bits or an EC key of at least 256 bits"
        guard keyHolds, hashHolds else {
            return (TraceStep(.atsCertificateStrength, .failed, detail), keyHolds ? .atsLeafCertificateHashAlgorithmViolation : .atsMinimumKeySizeViolation)
        }
        return (TraceStep(.atsCertificateStrength, .passed, detail), nil)
    }

    // MARK: - After the handler

    /// Why the handler's acceptance is final for this host, or nil when ATS still asks the system's default evaluation.
    var serverTrustExemption: String? {
        if let offReason { return offReason }
        if case .exception(let domain, let entry) = scope, entry.allowsInsecureHTTPLoads {
            return "NSExceptionAllowsInsecureHTTPLoads is YES in \(entryName(domain)), so ATS leaves the server trust to the app's handler"
        }
        return nil
    }

    /// The Info.plist change that would leave the server trust to the handler for this host.
    var serverTrustRemedy: String {
        if case .exception(let domain, _) = scope {
            return "NSExceptionAllowsInsecureHTTPLoads YES in \(entryName(domain)) would leave the server trust to the handler"
        }
        return "An NSExceptionDomains entry for '\(host)' with NSExceptionAllowsInsecureHTTPLoads YES, or NSAllowsArbitraryLoads YES, "
            + "would leave the server trust to the handler"
    }
}
