import Foundation
import Policies
import Simulation
import Testing

/// `compare`: one lesson's attack against several client models, each a real run with the same certificates.
struct ComparisonTests {
    static let releases = AFNetworkingVersion.allCases.map(ClientModelName.afnetworking)

    static func lesson(_ id: String) throws -> Scenario { try ScenarioCatalog.builtIn.load(id) }

    @Test("A forgery from a CA the device does not trust is refused by every AFNetworking release, and the attacker reads nothing")
    func everyReleaseRefusesAnUntrustedForgery() throws {
        let comparison = try Comparison(scenario: Self.lesson("02-forged-untrusted-ca"), clients: Self.releases)
        #expect(comparison.rows.map(\.client) == Self.releases)
        for row in comparison.rows {
            #expect(!row.trusted, "\(row.client)")
            #expect(row.decidingCheck != nil, "\(row.client)")
            #expect(!row.attackerSawPlaintext, "\(row.client)")
        }
    }

    @Test("Against a self-signed forgery only AFNetworking 2.5.1's default policy accepts, without evaluating anything, and the attacker reads the request")
    func onlyTwoFiveOneAcceptsASelfSignedForgery() throws {
        let comparison = try Comparison(scenario: Self.lesson("38-afnetworking-2-5-1-accepts-self-signed"), clients: Self.releases)
        let accepted = comparison.rows.filter(\.trusted)
        #expect(accepted.map(\.client) == [.afnetworking(.v2_5_1)])
        #expect(accepted.first?.decidingCheck == .modeNoneWithoutEvaluation)
        #expect(accepted.first?.attackerSawPlaintext == true)
        #expect(comparison.rows.filter { !$0.trusted }.allSatisfy { !$0.attackerSawPlaintext })
    }

    @Test("An AFNetworking row is the lesson's app moved to that release, as the L key moves it")
    func anAFNetworkingRowKeepsTheLessonsSettings() throws {
        let lesson = try Self.lesson("12-certificate-pin-vs-installed-ca")
        let row = Comparison.scenario(lesson, for: .afnetworking(.v2_6))
        #expect(row.client.library == .afnetworking(.v2_6))
        #expect(row.client.policy.pinningMode == lesson.client.policy.pinningMode)
        #expect(row.client.policy.pinnedCertificates == lesson.client.policy.pinnedCertificates)
        #expect(row.client.challengeHandler == lesson.client.challengeHandler)
    }

    @Test("A peer library's row keeps the lesson's pins and names the library")
    func aPeerRowKeepsThePins() throws {
        let lesson = try Self.lesson("12-certificate-pin-vs-installed-ca")
        let row = Comparison.scenario(lesson, for: .okhttp)
        #expect(row.client.library == .okhttp)
        #expect(row.client.policy.pinnedCertificates == lesson.client.policy.pinnedCertificates)
    }

    @Test("The appended pinned certificate gets past OkHttp before its chain-cleaning fix, and not past today's (CVE-2016-2402)")
    func theAppendedPinnedCertificateSplitsOldAndNewOkHttp() throws {
        let comparison = try Comparison(scenario: Self.lesson("21-appended-pinned-certificate"), clients: [.okhttp, .okhttp3_1_1])
        #expect(comparison.rows.map(\.trusted) == [false, true])
        #expect(comparison.rows.map(\.decidingCheck) == [.okHttpCertificatePinner, .okHttpCertificatePinner])
        #expect(comparison.rows.map(\.attackerSawPlaintext) == [false, true])
    }

    @Test("On plain http:// OkHttp sends the password in clear, and the Network Security Config refuses cleartext before connecting")
    func plainHTTPSplitsOkHttpAndTheNetworkSecurityConfig() throws {
        let comparison = try Comparison(scenario: Self.lesson("35-plain-http-arbitrary-loads"), clients: [.okhttp, .androidNSC])
        #expect(comparison.rows.map(\.attackerSawPlaintext) == [true, false])
        #expect(comparison.rows.map(\.decidingCheck) == [nil, .androidCleartextTraffic])
        #expect(comparison.rows.last?.report.serverReceivedRequest == false)
    }

    @Test("Each peer takes the lesson's root pin in its own terms: only curl, which pins the leaf's key alone, refuses the mis-issued leaf")
    func aRootPinLetsTheMisissuedLeafThroughEveryPeerButCurl() throws {
        let comparison = try Comparison(
            scenario: Self.lesson("20-compromised-intermediate-vs-root-pin"), clients: [.alamofire5, .trustkit, .okhttp, .androidNSC, .curl])
        #expect(comparison.rows.map(\.trusted) == [true, true, true, true, false])
        #expect(comparison.rows.last?.decidingCheck == .curlPinnedPublicKey)
    }

    @Test("The JSON has exactly scenario and rows, each row exactly client, trusted, decidingCheck and attackerSawPlaintext")
    func theJSONShapeIsExact() throws {
        let comparison = try Comparison(
            scenario: Self.lesson("38-afnetworking-2-5-1-accepts-self-signed"), clients: [.afnetworking(.v4), .afnetworking(.v2_5_1)])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(comparison.json.utf8)) as? [String: Any])
        #expect(Set(document.keys) == ["scenario", "rows"])
        #expect(document["scenario"] as? String == "38-afnetworking-2-5-1-accepts-self-signed")
        let rows = try #require(document["rows"] as? [[String: Any]])
        #expect(rows.map { Set($0.keys) } == Array(repeating: ["client", "trusted", "decidingCheck", "attackerSawPlaintext"], count: 2))
        #expect(rows.map { $0["client"] as? String } == ["afnetworking-4", "afnetworking-2.5.1"])
        #expect(rows.map { $0["trusted"] as? Bool } == [false, true])
        #expect(rows.map { $0["decidingCheck"] as? String } == ["chainTrust", "modeNoneWithoutEvaluation"])
        #expect(rows.map { $0["attackerSawPlaintext"] as? Bool } == [false, true])
    }

    @Test("The text table has one row per client with its verdict, deciding step and what the attacker read")
    func theTextTableHasARowPerClient() throws {
        let comparison = try Comparison(
            scenario: Self.lesson("38-afnetworking-2-5-1-accepts-self-signed"), clients: [.afnetworking(.v4), .afnetworking(.v2_5_1)])
        let lines = comparison.text.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.contains("client verdict deciding step attacker read"))
        #expect(lines.contains("afnetworking-4 REJECTED chainTrust nothing"))
        #expect(lines.contains("afnetworking-2.5.1 ACCEPTED modeNoneWithoutEvaluation password 'hunter2'"))
        #expect(comparison.markdown.contains("| afnetworking-2.5.1 | ACCEPTED | modeNoneWithoutEvaluation | password 'hunter2' |"))
    }
}

/// The `clients:` key and a peer library's client block, as files write them.
struct ClientsKeyTests {
    func load(_ text: String) throws -> Scenario { try ClientLoaderTests.Folder().load(text) }
    func error(_ text: String) -> String? { try? ClientLoaderTests.Folder().error(text) }

    static func clients(_ value: String) -> String { LoaderErrorTests.valid + "\nclients: \(value)\n" }

    @Test("Without clients: a lesson compares every model, in the issue's order: the AFNetworking releases, then the peers")
    func everyModelByDefault() throws {
        let scenario = try load(LoaderErrorTests.valid)
        #expect(scenario.clients == nil)
        #expect(
            scenario.comparedClients.map(\.rawValue) == [
                "afnetworking-4", "afnetworking-3.1", "afnetworking-3.0", "afnetworking-2.6", "afnetworking-2.5.3", "afnetworking-2.5.2", "afnetworking-2.5.1",
                "afnetworking-2.5.0",
                "afnetworking-2.2", "afnetworking-2.1", "afnetworking-2.0", "alamofire-5", "alamofire-4", "trustkit", "okhttp", "okhttp-3.1.1",
                "android-nsc", "curl", "curl-8.17",
            ])
    }

    @Test("clients: gives the comparison set in the file's order")
    func theFilesOrder() throws {
        #expect(try load(Self.clients("[okhttp-3.1.1, okhttp, afnetworking-2.5.1]")).comparedClients == [.okhttp3_1_1, .okhttp, .afnetworking(.v2_5_1)])
    }

    @Test(
        "A broken clients: list is one line naming the entry",
        arguments: [
            ("[okhttp, okhttp-3]", "x.yaml: clients[1]: 'okhttp-3' is not a client model (\(ClientLibraries.builtIn.names))"),
            ("[curl, trustkit, curl]", "x.yaml: clients[2]: 'curl' is named twice (each client is compared once)"),
            ("[]", "x.yaml: clients: is empty: name the client models to compare, or leave the key out for every one"),
            ("okhttp", "x.yaml: clients: expected a list of strings, found 'okhttp'"),
        ])
    func brokenClients(value: String, expected: String) {
        #expect(error(Self.clients(value)) == expected)
    }

    @Test("A peer library's client block gives the lesson's pins, and AFNetworking 4's defaults stand for the rest")
    func aPeerTakesThePins() throws {
        let scenario = try load(ClientLoaderTests.library("okhttp", policy: "    pinningMode: publicKey\n    pinnedCertificates: [bank-leaf]"))
        #expect(scenario.client.library == .okhttp)
        #expect(scenario.client.policy.pinningMode == .publicKey)
        #expect(scenario.client.policy.pinnedCertificates == ["bank-leaf"])
        #expect(!scenario.client.policy.allowInvalidCertificates)
        #expect(scenario.client.policy.validatesDomainName)
    }

    @Test(
        "An iOS client key under a peer library is refused by name",
        arguments: [
            (
                ClientLoaderTests.library("trustkit", policy: "    pinningMode: none\n    allowInvalidCertificates: true"),
                "x.yaml: client.policy.allowInvalidCertificates: trustkit has no allowInvalidCertificates (an AFSecurityPolicy property; "
                    + "a peer library takes the lesson's pins only: pinningMode and pinnedCertificates)"
            ),
            (
                ClientLoaderTests.library("curl", policy: "    pinningMode: none").replacingOccurrences(
                    of: "  library: curl\n", with: "  library: curl\n  challengeHandler: acceptAll\n"),
                "x.yaml: client.challengeHandler: curl has no challengeHandler (it belongs to the iOS client of the afnetworking-… names; "
                    + "a peer library's client block gives library, policy, trustKit, android and networkSecurityConfig only)"
            ),
        ])
    func iOSKeysUnderAPeer(text: String, expected: String) {
        #expect(error(text) == expected)
    }
}
