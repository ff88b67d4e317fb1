import Policies
import Simulation
import Testing

/// The comparisons that lessons 43 and 49 quote in their reveals, row by row: each a real run per client.
struct PinningLibraryComparisonTests {
    /// Each row's client, verdict and deciding step, as the reveal words them.
    static func verdicts(_ comparison: Comparison) -> [String] {
        comparison.rows.map { "\($0.client) \($0.trusted ? "ACCEPTED" : "REJECTED") at \($0.decidingCheck?.rawValue ?? "no step")" }
    }

    /// Each row's verdict and what the attacker read: the request, or nothing.
    static func rows(_ comparison: Comparison) -> [String] {
        zip(verdicts(comparison), comparison.rows).map { "\($0) \($1.attackerSawPlaintext ? "read" : "nothing")" }
    }

    @Test("43: the lesson's own comparison: today's OkHttp refuses the appended pinned certificate, OkHttp before the fix lets Mallory read")
    func theAppendedPinSplitsOldAndNewOkHttp() throws {
        let lesson = try ScenarioCatalog.builtIn.load("43-appended-pinned-certificate-old-okhttp")
        #expect(lesson.comparedClients == [.okhttp, .okhttp3_1_1])
        let comparison = try Comparison(scenario: lesson)
        #expect(
            Self.rows(comparison) == [
                "okhttp REJECTED at okHttpCertificatePinner nothing",
                "okhttp-3.1.1 ACCEPTED at okHttpCertificatePinner read",
            ])
    }

    /// Lesson 49's table: eleven clients let the CA's mis-issued certificate through; eight refuse it.
    static let caPinRows = [
        "afnetworking-4 ACCEPTED at pinnedPublicKeyMatch read",
        "afnetworking-3.1 ACCEPTED at pinnedPublicKeyMatch read",
        "afnetworking-3.0 ACCEPTED at pinnedPublicKeyMatch read",
        "afnetworking-2.6 ACCEPTED at pinnedPublicKeyMatch read",
        "afnetworking-2.5.3 REJECTED at everyPublicKeyPinned nothing",
        "afnetworking-2.5.2 REJECTED at everyPublicKeyPinned nothing",
        "afnetworking-2.5.1 REJECTED at everyPublicKeyPinned nothing",
        "afnetworking-2.5.0 REJECTED at everyPublicKeyPinned nothing",
        "afnetworking-2.2 REJECTED at everyPublicKeyPinned nothing",
        "afnetworking-2.1 REJECTED at everyPublicKeyPinned nothing",
        "afnetworking-2.0 ACCEPTED at pinnedPublicKeyMatch read",
        "alamofire-5 ACCEPTED at alamofirePublicKeyPinning read",
        "alamofire-4 ACCEPTED at alamofire4PublicKeyPinning read",
        "trustkit ACCEPTED at trustKitPinMatch read",
        "okhttp ACCEPTED at okHttpCertificatePinner read",
        "okhttp-3.1.1 ACCEPTED at okHttpCertificatePinner read",
        "android-nsc ACCEPTED at androidHostnameVerifier read",
        "curl REJECTED at curlPinnedPublicKey nothing",
        "curl-8.17 REJECTED at curlPinnedPublicKey nothing",
    ]

    @Test("49: a pin on the issuing CA lets its mis-issued certificate through eleven clients; the old AFNetworking releases and curl refuse it")
    func aCAPinLetsTheMisissuedLeafThroughMostClients() throws {
        let lesson = try ScenarioCatalog.builtIn.load("49-ca-pin-in-every-library")
        #expect(lesson.comparedClients == ClientLibraries.builtIn.modelNames)
        let comparison = try Comparison(scenario: lesson)
        #expect(Self.rows(comparison) == Self.caPinRows)
    }

    @Test("49: with no attacker (the A key once) every client gives the same verdict at the same step: the refusals refuse the real bank too")
    func theRefusalsOfLesson49RefuseTheRealBankToo() throws {
        let lesson = try ScenarioCatalog.builtIn.load("49-ca-pin-in-every-library")
        let (bankOnly, change) = ScenarioEdit.nextAttack.apply(to: lesson)
        #expect(bankOnly.attacker.attack == .none, "\(change)")
        let sameVerdicts = Self.caPinRows.map { $0.split(separator: " ").dropLast().joined(separator: " ") }
        #expect(Self.verdicts(try Comparison(scenario: bankOnly)) == sameVerdicts)
    }

    @Test("51: of every client, only AFNetworking 3.0.x lets the installed CA's forgery through the public-key pin, at systemTrust")
    func onlyAFNetworking3_0LetsTheForgeryThrough() throws {
        let comparison = try Comparison(scenario: try ScenarioCatalog.builtIn.load("51-afnetworking-3-0-public-key-pin-does-not-stop"))
        let through = Self.rows(comparison).filter { $0.contains(" ACCEPTED ") }
        #expect(through == ["afnetworking-3.0 ACCEPTED at systemTrust read"])
        #expect(
            Self.verdicts(comparison).prefix(2) == ["afnetworking-4 REJECTED at pinnedPublicKeyMatch", "afnetworking-3.1 REJECTED at pinnedPublicKeyMatch"])
    }
}
