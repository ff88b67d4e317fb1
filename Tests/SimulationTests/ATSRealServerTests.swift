import Foundation
import PKI
import Policies
import Simulation
import Testing

/// Every App Transport Security rule, against a real bank on 127.0.0.1 that breaks it: a TLS 1.0 or 1.1
/// server, RSA key exchange, an RSA-1024 leaf, a SHA-1-signed leaf, and plain `http://`. Each is refused
/// by an app with ATS fully on, and allowed by the Info.plist key that exempts it.
struct ATSRealServerTests {
    /// A lesson with no attacker: the bank's leaf under a root built into iOS, and AFNetworking 4's default policy.
    static let lesson = """
        version: 3
        title: T
        group: G
        summary: S
        lesson:
          story: S
          reveal: R
        clock: "2026-06-01T00:00:00Z"
        world:
          authorities:
            - id: bank-root
              deviceTrust: system
          leaves:
            - id: bank-leaf
              issuer: bank-root
              dnsNames: [bank.test]
        server:
          host: bank.test
          leaf: bank-leaf
        client:
          library: afnetworking-4
          policy: {}
        expect:
          trusted: true
          attackerSawPlaintext: false
          serverReceivedRequest: true
        """

    /// Runs `lesson` for real, with `leaf`, `server` and `client` lines added to those mappings, and `url` as
    /// the request's URL instead of https://bank.test/login.
    static func run(leaf: [String] = [], server: [String] = [], client: [String] = [], url: String? = nil) throws -> RunReport {
        func adding(_ lines: [String], indent: Int, before anchor: String, to text: String) -> String {
            text.replacingOccurrences(of: anchor, with: lines.map { String(repeating: " ", count: indent) + $0 + "\n" }.joined() + anchor)
        }
        var yaml = adding(leaf, indent: 6, before: "server:\n", to: lesson)
        yaml = adding(server, indent: 2, before: "client:\n", to: yaml)
        yaml = adding(client, indent: 2, before: "expect:\n", to: yaml)
        yaml = adding(url.map { ["request:", "  url: \($0)"] } ?? [], indent: 0, before: "expect:\n", to: yaml)
        return try ScenarioRunner.run(ScenarioLoader.decode(Data(yaml.utf8), file: "ats.yaml", id: "ats"))
    }

    /// The step named `check`, or nil when the trace has none.
    static func step(_ check: TraceStep.Check, in report: RunReport) -> TraceStep? {
        report.evaluation?.steps.first { $0.check == check }
    }

    /// An NSExceptionDomains entry for bank.test with `key: value`.
    static func exception(_ key: String, _ value: String) -> [String] {
        ["ats:", "  NSExceptionDomains:", "    bank.test:", "      \(key): \(value)"]
    }

    // MARK: - The TLS version

    /// `server.tlsVersion` for a bank that speaks only that version, with the version it negotiates.
    static let oldVersions: [(tlsVersion: String, version: TLSVersion)] = [("1.0", .tls10), ("1.1", .tls11)]

    @Test("A bank that speaks only TLS 1.0 or 1.1 is refused at atsTLSVersion with -1200, naming the negotiated version", arguments: oldVersions)
    func anOldVersionIsRefused(tlsVersion: String, version: TLSVersion) throws {
        let report = try Self.run(server: ["tlsVersion: \"\(tlsVersion)\""])

        #expect(!report.trusted)
        #expect(report.decidingCheck == .atsTLSVersion)
        #expect(report.evaluation?.rejection == .atsMinimumVersionViolation)
        #expect(report.evaluation?.urlError == .secureConnectionFailed)
        #expect(Self.step(.atsTLSVersion, in: report)?.detail.hasPrefix("\(version.rawValue) was negotiated; ATS requires at least TLS 1.2") == true)
        #expect(Self.step(.challengeHandler, in: report) == nil, "no challenge reaches the app")
        #expect(!report.serverReceivedRequest)
    }

    @Test(
        "NSExceptionMinimumTLSVersion at the bank's version lets it through, and the policy decides at chainTrust",
        arguments: oldVersions)
    func theMinimumVersionExceptionAllowsIt(tlsVersion: String, version: TLSVersion) throws {
        let report = try Self.run(server: ["tlsVersion: \"\(tlsVersion)\""], client: Self.exception("NSExceptionMinimumTLSVersion", version.infoPlistValue))

        #expect(report.trusted)
        #expect(report.decidingCheck == .chainTrust)
        #expect(Self.step(.atsTLSVersion, in: report)?.outcome == .passed)
        #expect(
            Self.step(.atsTLSVersion, in: report)?.detail
                == "\(version.rawValue) was negotiated; NSExceptionMinimumTLSVersion is \(version.infoPlistValue) in the NSExceptionDomains entry 'bank.test', so it is allowed"
        )
        #expect(report.serverReceivedRequest)
    }

    @Test("NSExceptionMinimumTLSVersion TLSv1.1 still refuses a bank that speaks only TLS 1.0")
    func aMinimumAboveTheBanksVersionStillRefusesIt() throws {
        let report = try Self.run(server: ["tlsVersion: \"1.0\""], client: Self.exception("NSExceptionMinimumTLSVersion", "TLSv1.1"))

        #expect(report.decidingCheck == .atsTLSVersion)
        #expect(report.evaluation?.rejection == .atsMinimumVersionViolation)
        #expect(!report.serverReceivedRequest)
    }

    // MARK: - Forward secrecy

    static let rsaKeyExchange = (leaf: ["keyType: rsa2048"], server: ["tlsVersion: \"1.2\"", "forwardSecrecy: false"])

    @Test("A bank that offers only RSA key exchange is refused at atsCipherSuite with -1200, naming the negotiated suite")
    func rsaKeyExchangeIsRefused() throws {
        let report = try Self.run(leaf: Self.rsaKeyExchange.leaf, server: Self.rsaKeyExchange.server)

        #expect(!report.trusted)
        #expect(report.decidingCheck == .atsCipherSuite)
        #expect(report.evaluation?.rejection == .atsCiphersuiteViolation)
        #expect(report.evaluation?.urlError == .secureConnectionFailed)
        #expect(Self.step(.atsTLSVersion, in: report)?.detail.hasPrefix("TLS 1.2 was negotiated") == true)
        #expect(
            Self.step(.atsCipherSuite, in: report)?.detail
                == "TLS_RSA_WITH_AES_128_GCM_SHA256 is not a forward-secret ECDHE suite with AES, which ATS requires below TLS 1.3")
        #expect(!report.serverReceivedRequest)
    }

    @Test("NSExceptionRequiresForwardSecrecy NO accepts the RSA key exchange suite, because it uses AES")
    func theForwardSecrecyExceptionAllowsIt() throws {
        let report = try Self.run(
            leaf: Self.rsaKeyExchange.leaf, server: Self.rsaKeyExchange.server, client: Self.exception("NSExceptionRequiresForwardSecrecy", "false"))

        #expect(report.trusted)
        #expect(report.decidingCheck == .chainTrust)
        #expect(
            Self.step(.atsCipherSuite, in: report)?.detail
                == "NSExceptionRequiresForwardSecrecy is NO in the NSExceptionDomains entry 'bank.test', so a suite without forward secrecy "
                + "is allowed if it uses AES: TLS_RSA_WITH_AES_128_GCM_SHA256 does")
        #expect(report.serverReceivedRequest)
    }

    // MARK: - The leaf's strength

    // iOS 13's own trust rules refuse RSA-1024 and SHA-1 as well ("Requirements for trusted certificates in
    // iOS 13"), so the exemptions run on iOS 12, where only ATS's rule stands between the bank and the app.

    @Test("A bank with an RSA-1024 leaf is refused at atsCertificateStrength with -1200, naming its key")
    func anRSA1024LeafIsRefused() throws {
        let report = try Self.run(leaf: ["keyType: rsa1024"])

        #expect(!report.trusted)
        #expect(report.decidingCheck == .atsCertificateStrength)
        #expect(report.evaluation?.rejection == .atsMinimumKeySizeViolation)
        #expect(report.evaluation?.urlError == .secureConnectionFailed)
        #expect(Self.step(.atsCertificateStrength, in: report)?.detail.hasPrefix("the leaf 'bank-leaf' has an RSA 1024 key and is signed with SHA-256") == true)
        #expect(!report.serverReceivedRequest)
    }

    @Test("NSExceptionRequiresForwardSecrecy NO drops the key-size rule: on iOS 12 the RSA-1024 leaf is accepted")
    func theForwardSecrecyExceptionAllowsAShortKey() throws {
        let report = try Self.run(leaf: ["keyType: rsa1024"], client: ["platform: ios12"] + Self.exception("NSExceptionRequiresForwardSecrecy", "false"))

        #expect(report.trusted)
        #expect(report.decidingCheck == .chainTrust)
        #expect(Self.step(.atsCertificateStrength, in: report)?.outcome == .passed)
        #expect(Self.step(.atsCertificateStrength, in: report)?.detail.contains("key is not checked because NSExceptionRequiresForwardSecrecy is NO") == true)
        #expect(Self.step(.atsServerTrust, in: report)?.outcome == .note, "the system trusts the chain on iOS 12")
        #expect(report.serverReceivedRequest)
    }

    @Test("The same exception on iOS 13: ATS lets the RSA-1024 leaf through, and the phone's own trust rules refuse it at chainTrust")
    func onIOS13TheTrustRulesStillRefuseAShortKey() throws {
        let report = try Self.run(leaf: ["keyType: rsa1024"], client: Self.exception("NSExceptionRequiresForwardSecrecy", "false"))

        #expect(Self.step(.atsCertificateStrength, in: report)?.outcome == .passed)
        #expect(report.decidingCheck == .chainTrust)
        #expect(!report.trusted)
        #expect(!report.serverReceivedRequest)
    }

    @Test("A bank with a SHA-1-signed leaf is refused at atsCertificateStrength with -1200, naming the digest")
    func aSHA1LeafIsRefused() throws {
        let report = try Self.run(leaf: ["signatureDigest: sha1"])

        #expect(!report.trusted)
        #expect(report.decidingCheck == .atsCertificateStrength)
        #expect(report.evaluation?.rejection == .atsLeafCertificateHashAlgorithmViolation)
        #expect(report.evaluation?.urlError == .secureConnectionFailed)
        #expect(Self.step(.atsCertificateStrength, in: report)?.detail.contains("is signed with SHA-1") == true)
        #expect(!report.serverReceivedRequest)
    }

    // Apple's exceptions for an https:// domain loosen the TLS version, forward secrecy with the key size, and
    // the server trust; none names the leaf's hash. Only ATS off for the host lets a SHA-1 leaf through.
    @Test(
        "No NSExceptionDomains key waives the SHA-256 rule for a SHA-1-signed leaf",
        arguments: [
            ("NSExceptionRequiresForwardSecrecy", "false"), ("NSExceptionAllowsInsecureHTTPLoads", "true"), ("NSExceptionMinimumTLSVersion", "TLSv1.0"),
        ])
    func noExceptionKeyWaivesTheHashRule(key: String, value: String) throws {
        let report = try Self.run(leaf: ["signatureDigest: sha1"], client: ["platform: ios12"] + Self.exception(key, value))

        #expect(report.decidingCheck == .atsCertificateStrength)
        #expect(report.evaluation?.rejection == .atsLeafCertificateHashAlgorithmViolation)
        #expect(!report.serverReceivedRequest)
    }

    @Test("NSAllowsArbitraryLoads YES takes ATS off for the host: on iOS 12 the SHA-1-signed leaf is accepted")
    func arbitraryLoadsAllowAWeakHash() throws {
        let report = try Self.run(leaf: ["signatureDigest: sha1"], client: ["platform: ios12", "ats:", "  NSAllowsArbitraryLoads: true"])

        #expect(report.trusted)
        #expect(report.decidingCheck == .chainTrust)
        #expect(Self.step(.atsCertificateStrength, in: report)?.outcome == .skipped)
        #expect(report.serverReceivedRequest)
    }

    // MARK: - Plain http://

    @Test("A plain http:// URL is refused at atsScheme with -1022 before any connection is made")
    func plainHTTPIsRefused() throws {
        let report = try Self.run(url: "http://bank.test/login")

        #expect(!report.trusted)
        #expect(report.decidingCheck == .atsScheme)
        #expect(report.evaluation?.steps.count == 1)
        #expect(report.evaluation?.rejection == .atsRequiresSecureConnection)
        #expect(report.evaluation?.urlError == .appTransportSecurityRequiresSecureConnection)
        #expect(report.events.isEmpty, "the app opens no connection")
        #expect(!report.serverReceivedRequest)
    }

    @Test("An attacker waiting on the path of a refused http:// URL is there, but the app never connects to it")
    func plainHTTPRefusedWithAnAttackerWaiting() throws {
        let report = try ScenarioRunner.run(
            ScenarioLoader.decode(
                Data(
                    Self.lesson.replacingOccurrences(
                        of: "client:\n", with: "attacker:\n  attack: passthrough\nrequest:\n  url: http://bank.test/login\nclient:\n"
                    ).utf8),
                file: "ats.yaml", id: "ats"))
        #expect(report.decidingCheck == .atsScheme)
        #expect(report.attackerView.isOnPath && !report.attackerView.connected)
        #expect(report.outcome.contains("The attacker was on the path, but the app never connected to it."))
    }

    @Test(
        "NSAllowsArbitraryLoads or NSExceptionAllowsInsecureHTTPLoads lets a plain http:// login reach the bank",
        arguments: [["ats:", "  NSAllowsArbitraryLoads: true"], exception("NSExceptionAllowsInsecureHTTPLoads", "true")])
    func plainHTTPIsAllowed(ats: [String]) throws {
        let report = try Self.run(client: ats, url: "http://bank.test/login")

        #expect(report.trusted)
        #expect(report.decidingCheck == .atsScheme)
        #expect(Self.step(.atsScheme, in: report)?.detail.hasSuffix("http:// is allowed: the request goes out in plain text") == true)
        #expect(!report.handshakeCompleted, "there is no TLS at all")
        #expect(report.serverReceivedRequest)
    }
}
