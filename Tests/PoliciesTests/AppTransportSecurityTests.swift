import PKI
import Policies
import Testing

/// App Transport Security's rules, each holding, failing and exempted, on real certificates.
struct AppTransportSecurityTests {
    let world = BankWorld.shared
    let weak = WeakLeaves.shared

    static let tls13 = NegotiatedTLS(version: .tls13, cipherSuite: "TLS_AES_128_GCM_SHA256")
    static let tls12 = NegotiatedTLS(version: .tls12, cipherSuite: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")
    static let tls10 = NegotiatedTLS(version: .tls10, cipherSuite: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA")
    static let tls11 = NegotiatedTLS(version: .tls11, cipherSuite: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA")
    static let rsaKeyExchange = NegotiatedTLS(version: .tls12, cipherSuite: "TLS_RSA_WITH_AES_128_GCM_SHA256")
    static let rsaKeyExchangeTLS10 = NegotiatedTLS(version: .tls10, cipherSuite: "TLS_RSA_WITH_AES_128_CBC_SHA")

    static func exception(_ domain: String, _ entry: AppTransportSecurity.ExceptionDomain) -> AppTransportSecurity {
        AppTransportSecurity(exceptionDomains: [domain: entry])
    }

    func evaluate(
        _ ats: AppTransportSecurity, _ negotiated: NegotiatedTLS = tls13, chain: [Certificate]? = nil, host: String = "bank.test"
    ) -> PolicyEvaluation {
        IOSClient(ats: ats).evaluate(serverTrust: world.trust(chain ?? world.realChain), negotiated: negotiated, host: host, domain: host)
    }

    func step(_ evaluation: PolicyEvaluation, _ check: TraceStep.Check) -> TraceStep? {
        evaluation.steps.first { $0.check == check }
    }

    // MARK: - Which settings govern a host

    @Test func anExceptionEntryCoversItsOwnDomainInAnyCase() {
        let entry = AppTransportSecurity.ExceptionDomain(minimumTLSVersion: .tls10)
        #expect(Self.exception("bank.test", entry).scope(forHost: "BANK.test") == .exception(domain: "bank.test", entry))
        #expect(Self.exception("Bank.Test", entry).scope(forHost: "bank.test") == .exception(domain: "Bank.Test", entry))
    }

    @Test func includesSubdomainsCoversOneLabelBelowTheEntryAndNoDeeper() {
        let entry = AppTransportSecurity.ExceptionDomain(includesSubdomains: true)
        let ats = Self.exception("bank.test", entry)
        #expect(ats.scope(forHost: "www.bank.test") == .exception(domain: "bank.test", entry))
        #expect(ats.scope(forHost: "api.www.bank.test") == .defaults)
        #expect(ats.scope(forHost: "evilbank.test") == .defaults)
    }

    @Test func withoutIncludesSubdomainsASubdomainGetsTheDefaults() {
        #expect(Self.exception("bank.test", .init()).scope(forHost: "www.bank.test") == .defaults)
    }

    @Test func includesSubdomainsHasNoEffectOnAnIPAddress() {
        let ats = Self.exception("0.0.1", .init(includesSubdomains: true))
        #expect(ats.scope(forHost: "127.0.0.1") == .defaults)
    }

    @Test func anExactEntryWinsOverItsParentsAndArbitraryLoadsDoesNotApplyToEither() {
        let parent = AppTransportSecurity.ExceptionDomain(includesSubdomains: true, allowsInsecureHTTPLoads: true)
        let own = AppTransportSecurity.ExceptionDomain(minimumTLSVersion: .tls11)
        let ats = AppTransportSecurity(allowsArbitraryLoads: true, exceptionDomains: ["bank.test": parent, "www.bank.test": own])
        #expect(ats.scope(forHost: "www.bank.test") == .exception(domain: "www.bank.test", own))
        #expect(ats.scope(forHost: "api.bank.test") == .exception(domain: "bank.test", parent))
        #expect(ats.scope(forHost: "shop.test") == .arbitraryLoads)
    }

    @Test func anAppLinkedBeforeIOS9HasNoATSWhateverItsInfoPlistSays() {
        let ats = AppTransportSecurity(linkedBeforeIOS9: true, exceptionDomains: ["bank.test": .init()])
        #expect(ats.scope(forHost: "bank.test") == .notLinked)
    }

    @Test func theInfoPlistSpellsTLSVersionsWithAV() {
        #expect(TLSVersion.allCases.map(\.infoPlistValue) == ["TLSv1.0", "TLSv1.1", "TLSv1.2", "TLSv1.3"])
        #expect(TLSVersion(infoPlistValue: "TLSv1.1") == .tls11)
        #expect(TLSVersion(infoPlistValue: "TLS 1.1") == nil)
    }

    // MARK: - http://

    @Test func plainHTTPIsRefusedBeforeAnyConnectionByDefault() throws {
        let evaluation = try #require(IOSClient().evaluateLoad(scheme: "http", host: "bank.test"))
        #expect(
            evaluation.steps == [
                TraceStep(
                    .atsScheme, .failed,
                    "ATS requires https:// and neither NSAllowsArbitraryLoads nor an NSExceptionDomains entry allows http:// for 'bank.test', "
                        + "so it refuses the load before connecting")
            ])
        #expect(evaluation.rejection == .atsRequiresSecureConnection)
        #expect(evaluation.urlError == .appTransportSecurityRequiresSecureConnection)
        #expect(evaluation.urlError?.code == -1022)
        #expect(
            evaluation.verdict == "NOT TRUSTED: atsRequiresSecureConnection (decided at atsScheme), NSURLError -1022 "
                + "NSURLErrorAppTransportSecurityRequiresSecureConnection")
    }

    @Test func arbitraryLoadsLetsPlainHTTPGoOutAndSaysSo() throws {
        let evaluation = try #require(IOSClient(ats: AppTransportSecurity(allowsArbitraryLoads: true)).evaluateLoad(scheme: "HTTP", host: "bank.test"))
        #expect(
            evaluation.steps == [
                TraceStep(
                    .atsScheme, .passed,
                    "NSAllowsArbitraryLoads is YES and no NSExceptionDomains entry covers 'bank.test', so ATS does not apply: "
                        + "http:// is allowed: the request goes out in plain text")
            ])
        #expect(evaluation.isTrusted && evaluation.urlError == nil)
        #expect(evaluation.decidingStep?.check == .atsScheme)
    }

    @Test func allowsInsecureHTTPLoadsLetsPlainHTTPGoOutForItsDomainOnly() throws {
        let client = IOSClient(ats: Self.exception("bank.test", .init(includesSubdomains: true, allowsInsecureHTTPLoads: true)))
        let allowed = try #require(client.evaluateLoad(scheme: "http", host: "www.bank.test"))
        #expect(
            allowed.steps == [
                TraceStep(
                    .atsScheme, .passed,
                    "NSExceptionAllowsInsecureHTTPLoads is YES in the NSExceptionDomains entry 'bank.test' (which covers 'www.bank.test' "
                        + "with NSIncludesSubdomains YES), so http:// is allowed: the request goes out in plain text")
            ])
        #expect(allowed.isTrusted)
        let elsewhere = try #require(client.evaluateLoad(scheme: "http", host: "shop.test"))
        #expect(elsewhere.rejection == .atsRequiresSecureConnection)
    }

    @Test func anEntryWithoutAllowsInsecureHTTPLoadsRefusesPlainHTTPEvenWithArbitraryLoads() throws {
        let client = IOSClient(ats: AppTransportSecurity(allowsArbitraryLoads: true, exceptionDomains: ["bank.test": .init(minimumTLSVersion: .tls10)]))
        let evaluation = try #require(client.evaluateLoad(scheme: "http", host: "bank.test"))
        #expect(
            evaluation.steps == [
                TraceStep(
                    .atsScheme, .failed,
                    "the NSExceptionDomains entry 'bank.test' does not set NSExceptionAllowsInsecureHTTPLoads YES (NSAllowsArbitraryLoads YES "
                        + "does not apply to a domain that has an entry), so ATS refuses http:// before connecting")
            ])
        #expect(evaluation.urlError?.code == -1022)
    }

    @Test func anAppLinkedBeforeIOS9SendsPlainHTTP() throws {
        let evaluation = try #require(IOSClient(ats: AppTransportSecurity(linkedBeforeIOS9: true)).evaluateLoad(scheme: "http", host: "bank.test"))
        #expect(evaluation.isTrusted)
        #expect(evaluation.decidingStep?.detail.hasPrefix("the app is linked against an SDK older than iOS 9, so ATS does not exist for it") == true)
    }

    @Test func anHTTPSLoadHasNoVerdictBeforeTheHandshake() {
        #expect(IOSClient().evaluateLoad(scheme: "https", host: "bank.test") == nil)
    }

    // MARK: - TLS version

    @Test func tls10IsRefusedByDefaultWithSecureConnectionFailedBeforeAnyHandlerRuns() {
        let evaluation = evaluate(AppTransportSecurity(), Self.tls10)
        #expect(evaluation.steps.map(\.check) == [.atsScheme, .atsTLSVersion])
        #expect(
            evaluation.decidingStep
                == TraceStep(
                    .atsTLSVersion, .failed,
                    "TLS 1.0 was negotiated; ATS requires at least TLS 1.2 and no NSExceptionDomains entry for 'bank.test' lowers it, so ATS refuses it"))
        #expect(evaluation.rejection == .atsMinimumVersionViolation)
        #expect(evaluation.urlError == .secureConnectionFailed)
    }

    @Test func nsExceptionMinimumTLSVersionAllowsTLS10ForItsDomain() {
        let evaluation = evaluate(Self.exception("bank.test", .init(minimumTLSVersion: .tls10)), Self.tls10)
        #expect(
            step(evaluation, .atsTLSVersion)
                == TraceStep(
                    .atsTLSVersion, .passed,
                    "TLS 1.0 was negotiated; NSExceptionMinimumTLSVersion is TLSv1.0 in the NSExceptionDomains entry 'bank.test', so it is allowed"))
        #expect(evaluation.isTrusted)
        #expect(evaluation.decidingStep?.check == .chainTrust)
    }

    @Test func anExceptionWhoseMinimumIsAboveTheNegotiatedVersionRefusesIt() {
        let evaluation = evaluate(Self.exception("bank.test", .init(minimumTLSVersion: .tls12)), Self.tls11)
        #expect(evaluation.decidingStep?.check == .atsTLSVersion)
        #expect(evaluation.decidingStep?.outcome == .failed)
        #expect(evaluation.rejection == .atsMinimumVersionViolation)
    }

    @Test func waivingForwardSecrecyDoesNotWaiveTheTLSVersionRule() {
        let evaluation = evaluate(Self.exception("bank.test", .init(requiresForwardSecrecy: false)), Self.tls10)
        #expect(evaluation.rejection == .atsMinimumVersionViolation)
        #expect(evaluation.decidingStep?.check == .atsTLSVersion)
    }

    // MARK: - Cipher suite

    @Test func aSuiteWithoutForwardSecrecyIsRefusedByDefault() {
        let evaluation = evaluate(AppTransportSecurity(), Self.rsaKeyExchange)
        #expect(
            evaluation.decidingStep
                == TraceStep(
                    .atsCipherSuite, .failed, "TLS_RSA_WITH_AES_128_GCM_SHA256 is not a forward-secret ECDHE suite with AES, which ATS requires below TLS 1.3"))
        #expect(evaluation.rejection == .atsCiphersuiteViolation)
        #expect(evaluation.urlError?.code == -1200)
    }

    @Test func aForwardSecretECDHESuiteWithAESPasses() {
        let evaluation = evaluate(AppTransportSecurity(), Self.tls12)
        #expect(
            step(evaluation, .atsCipherSuite)
                == TraceStep(.atsCipherSuite, .passed, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 is a forward-secret ECDHE suite with AES, as ATS requires"))
        #expect(evaluation.isTrusted)
    }

    @Test func aForwardSecretSuiteWithoutAESIsRefusedBelowTLS13() {
        let chacha = NegotiatedTLS(version: .tls12, cipherSuite: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256")
        #expect(evaluate(AppTransportSecurity(), chacha).rejection == .atsCiphersuiteViolation)
    }

    @Test func everyTLS13SuiteQualifies() {
        let chacha = NegotiatedTLS(version: .tls13, cipherSuite: "TLS_CHACHA20_POLY1305_SHA256")
        #expect(
            step(evaluate(AppTransportSecurity(), chacha), .atsCipherSuite)
                == TraceStep(.atsCipherSuite, .passed, "TLS_CHACHA20_POLY1305_SHA256 is a TLS 1.3 suite: every one is forward secret, and ATS accepts them"))
    }

    @Test func requiresForwardSecrecyNOAllowsAnRSAKeyExchangeWithAESButStillNotOtherCiphers() {
        let ats = Self.exception("bank.test", .init(requiresForwardSecrecy: false))
        let evaluation = evaluate(ats, Self.rsaKeyExchange)
        #expect(
            step(evaluation, .atsCipherSuite)
                == TraceStep(
                    .atsCipherSuite, .passed,
                    "NSExceptionRequiresForwardSecrecy is NO in the NSExceptionDomains entry 'bank.test', so a suite without forward secrecy "
                        + "is allowed if it uses AES: TLS_RSA_WITH_AES_128_GCM_SHA256 does"))
        #expect(evaluation.isTrusted)
        let tripleDES = NegotiatedTLS(version: .tls12, cipherSuite: "TLS_RSA_WITH_3DES_EDE_CBC_SHA")
        #expect(evaluate(ats, tripleDES).rejection == .atsCiphersuiteViolation)
    }

    // MARK: - Certificate strength

    @Test func anRSA1024LeafIsRefusedForItsKeySize() {
        let evaluation = evaluate(AppTransportSecurity(), chain: [weak.rsa1024.certificate, world.intermediate.certificate])
        #expect(
            evaluation.decidingStep
                == TraceStep(
                    .atsCertificateStrength, .failed,
                    "the leaf 'rsa1024 bank.test' has an RSA 1024 key and is signed with SHA-256; ATS asks for SHA-256 or better and "
                        + "an RSA key of at least 2048 bits or an EC key of at least 256 bits"))
        #expect(evaluation.rejection == .atsMinimumKeySizeViolation)
        #expect(evaluation.urlError == .secureConnectionFailed)
    }

    @Test func requiresForwardSecrecyNODropsTheKeySizeCheck() {
        let ats = Self.exception("bank.test", .init(requiresForwardSecrecy: false))
        let evaluation = evaluate(ats, chain: [weak.rsa1024.certificate, world.intermediate.certificate])
        #expect(
            step(evaluation, .atsCertificateStrength)
                == TraceStep(
                    .atsCertificateStrength, .passed,
                    "the leaf 'rsa1024 bank.test' is signed with SHA-256 (its RSA 1024 key is not checked because NSExceptionRequiresForwardSecrecy "
                        + "is NO in the NSExceptionDomains entry 'bank.test'); ATS asks for SHA-256 or better"))
        // The system's own rules (iOS 13+) still refuse an RSA-1024 leaf, so the default policy's chainTrust fails next.
        #expect(evaluation.decidingStep?.check == .chainTrust)
    }

    @Test func aSHA1SignedLeafIsRefusedEvenWithForwardSecrecyWaived() {
        let ats = Self.exception("bank.test", .init(requiresForwardSecrecy: false))
        let evaluation = evaluate(ats, chain: [weak.sha1.certificate, world.intermediate.certificate])
        #expect(evaluation.decidingStep?.check == .atsCertificateStrength)
        #expect(evaluation.decidingStep?.detail.hasPrefix("the leaf 'sha1 bank.test' is signed with SHA-1") == true)
        #expect(evaluation.rejection == .atsLeafCertificateHashAlgorithmViolation)
    }

    // MARK: - ATS off

    @Test(arguments: [
        (
            AppTransportSecurity(allowsArbitraryLoads: true),
            "NSAllowsArbitraryLoads is YES and no NSExceptionDomains entry covers 'bank.test', so ATS does not apply"
        ),
        (AppTransportSecurity(linkedBeforeIOS9: true), "the app is linked against an SDK older than iOS 9, so ATS does not exist for it"),
    ])
    func withATSOffEveryATSStepIsSkippedAndSaysWhy(ats: AppTransportSecurity, why: String) {
        let client = IOSClient(ats: ats, challengeHandler: .acceptAll)
        let evaluation = client.evaluate(
            serverTrust: world.trust([weak.rsa1024.certificate, world.intermediate.certificate]), negotiated: Self.rsaKeyExchangeTLS10,
            host: "bank.test", domain: "bank.test")
        let atsChecks: [TraceStep.Check] = [.atsScheme, .atsTLSVersion, .atsCipherSuite, .atsCertificateStrength, .atsServerTrust]
        #expect(evaluation.steps.filter { atsChecks.contains($0.check) } == atsChecks.map { TraceStep($0, .skipped, why) })
        // TLS 1.0, no forward secrecy, an RSA-1024 leaf the system does not trust: with ATS off, the accept-all block decides alone.
        #expect(evaluation.isTrusted)
        #expect(evaluation.decidingStep?.check == .challengeHandler)
    }
}

/// Leaves under the bank's intermediate that break ATS's certificate rule, each in one way.
struct WeakLeaves: Sendable {
    static let shared = try! WeakLeaves()

    let rsa1024: Identity, sha1: Identity

    init() throws {
        let world = BankWorld.shared
        let (start, end) = (world.leaf.certificate.notBefore, world.leaf.certificate.notAfter)
        rsa1024 = try world.factory.makeIdentity(
            .serverLeaf(label: "rsa1024 bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: end), keyType: .rsa1024, signedBy: world.intermediate)
        var sha1Spec = CertificateSpec.serverLeaf(label: "sha1 bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: end)
        sha1Spec.signatureDigest = .sha1
        sha1 = try world.factory.makeIdentity(sha1Spec, signedBy: world.intermediate)
    }
}
