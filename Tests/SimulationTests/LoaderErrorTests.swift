import Foundation
import Simulation
import Testing

/// Every kind of broken lesson file is refused with one line naming the file and the key path.
struct LoaderErrorTests {
    static let valid = """
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
            - id: attacker-ca
          leaves:
            - id: bank-leaf
              issuer: bank-root
              dnsNames: [bank.test]
        server:
          host: bank.test
          leaf: bank-leaf
        attacker:
          attack: forge
          authority: attacker-ca
        client:
          library: afnetworking-4
          policy:
            pinningMode: certificate
            pinnedCertificates: [bank-leaf]
        expect:
          trusted: false
          attackerSawPlaintext: false
          serverReceivedRequest: false
        """

    func load(_ text: String) throws -> Scenario {
        let path = NSTemporaryDirectory() + "mitmsim-loader-\(UUID().uuidString).yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            return try ScenarioLoader.load(path)
        } catch let error as ScenarioError {
            throw ScenarioError(file: "x.yaml", path: error.path, reason: error.reason)  // a stable file name for comparisons
        }
    }

    func error(_ text: String) -> String? {
        do {
            _ = try load(text)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func theValidFileLoads() throws {
        let scenario = try load(Self.valid)
        #expect(scenario.client.policy.pinnedCertificates == ["bank-leaf"])
        #expect(scenario.client.passesDomain)
    }

    @Test(arguments: [
        (
            "    pinningMode: certificate", "    pinningmode: certificate",
            "x.yaml: client.policy.pinningmode: unknown key (expected one of: allowInvalidCertificates, pinnedCertificates, pinningMode, validatesDomainName)"
        ),
        ("    pinningMode: certificate", "    pinningMode: pubkey", "x.yaml: client.policy.pinningMode: 'pubkey' is not one of: certificate, none, publicKey"),
        ("  trusted: false", "  trusted: maybe", "x.yaml: expect.trusted: expected true or false, found 'maybe'"),
        ("  trusted: false\n", "", "x.yaml: expect.trusted: missing"),
        (
            "    pinnedCertificates: [bank-leaf]", "    pinnedCertificates: [bank-lef]",
            "x.yaml: client.policy.pinnedCertificates[0]: no certificate 'bank-lef' in world.authorities or world.leaves"
        ),
        ("      issuer: bank-root", "      issuer: bank-rot", "x.yaml: world.leaves[0].issuer: no authority 'bank-rot' in world.authorities"),
        ("  leaf: bank-leaf", "  leaf: nobody", "x.yaml: server.leaf: no leaf 'nobody' in world.leaves"),
        ("  authority: attacker-ca", "  authority: mallory", "x.yaml: attacker.authority: no authority 'mallory' in world.authorities"),
        ("clock: \"2026-06-01T00:00:00Z\"", "clock: yesterday", "x.yaml: clock: 'yesterday' is not an ISO-8601 time such as 2026-06-01T00:00:00Z"),
        ("version: 3", "version: 4", "x.yaml: version: version 4 is not supported (this mitmsim reads version 3)"),
        (
            "version: 3", "version: 1",
            "x.yaml: version: version 1 is no longer read: write version 3, split `lesson` into `lesson.story` (before the reveal) and `lesson.reveal` "
                + "(after it), and replace `trustedByDevice: true` with `deviceTrust: system` (a root built into iOS) or `deviceTrust: userInstalled` "
                + "(a profile the user installed and fully trusted)"
        ),
        (
            "version: 3", "version: 2",
            "x.yaml: version: version 2 is no longer read: write version 3, and replace `trustedByDevice: true` with `deviceTrust: system` "
                + "(a root built into iOS) or `deviceTrust: userInstalled` (a profile the user installed and fully trusted)"
        ),
        (
            "deviceTrust: system", "deviceTrust: yes",
            "x.yaml: world.authorities[0].deviceTrust: 'yes' is not one of: system, userInstalled, userInstalledWithoutFullTrust"
        ),
        ("  library: afnetworking-4", "  library: afnetworking-4\n  platform: ios9", "x.yaml: client.platform: 'ios9' is not one of: ios12, ios13, ios16"),
        ("  reveal: R\n", "", "x.yaml: lesson.reveal: missing"),
        (
            "  reveal: R\n", "  reveal: R\n  tries:\n    - keys: \"a z\"\n      trusted: true\n",
            "x.yaml: lesson.tries[0].keys: 'z' is not a key that changes the lesson in the walkthrough: a, d, p, A, F, t, c, D, v, L, H, S, E, I, r or P"
        ),
        (
            "  reveal: R\n", "  reveal: R\n  tries:\n    - keys: \"P j x\"\n      trusted: true\n",
            "x.yaml: lesson.tries[0].keys: 'x' is not a key that changes the lesson on the pins screen: j, k, space, q or P"
        ),
        (
            "  reveal: R\n", "  reveal: R\n  tries:\n    - keys: \"j\"\n      trusted: true\n",
            "x.yaml: lesson.tries[0].keys: 'j' is not a key that changes the lesson in the walkthrough: a, d, p, A, F, t, c, D, v, L, H, S, E, I, r or P"
        ),
        (
            "  reveal: R\n", "  reveal: R\n  tries:\n    - keys: \" \"\n      trusted: true\n",
            "x.yaml: lesson.tries[0].keys: is empty: name the keys to press, such as \"a d\""
        ),
        ("  reveal: R\n", "  reveal: R\n  tries:\n    - keys: \"a\"\n", "x.yaml: lesson.tries[0].trusted: missing"),
        (
            "  reveal: R\n", "  reveal: R\n  tries:\n    - keys: \"P j q\"\n      trusted: true\n",
            "x.yaml: lesson.tries[0].keys: changes nothing: name a key that edits the lesson (on the pins screen, space)"
        ),
        ("    - id: attacker-ca", "    - id: bank-root", "x.yaml: world: the id 'bank-root' is used twice (entry 2)"),
        (
            "  library: afnetworking-4", "  library: afnetworking-4\n  networkSecurityConfig:\n    trustAnchors: [system, \"@raw/ca\"]",
            "x.yaml: client.networkSecurityConfig.trustAnchors: expected system or user (the <certificates src> a lesson can name), found '@raw/ca'"
        ),
        (
            "  library: afnetworking-4", "  library: afnetworking-4\n  networkSecurityConfig:\n    certificateTransparency: yes please",
            "x.yaml: client.networkSecurityConfig.certificateTransparency: expected true or false, found 'yes please'"
        ),
        (
            "  library: afnetworking-4", "  library: alamofire-6",
            "x.yaml: client.library: 'alamofire-6' is not one of: afnetworking-2.0, afnetworking-2.1, afnetworking-2.2, afnetworking-2.5.0, "
                + "afnetworking-2.5.1, afnetworking-2.5.2, afnetworking-2.5.3, afnetworking-2.6, afnetworking-3.0, afnetworking-3.1, afnetworking-4, alamofire-4, alamofire-5, "
                + "android-nsc, curl, curl-8.17, okhttp, okhttp-3.1.1, trustkit"
        ),
    ])
    func aBrokenFileNamesTheKeyPath(replacing: String, with replacement: String, expected: String) {
        #expect(Self.valid.contains(replacing))
        #expect(error(Self.valid.replacingOccurrences(of: replacing, with: replacement)) == expected)
    }

    @Test(arguments: ["\"\"", "\" \"", "bank..test", "-bank.test", "bank_test", "\"*.bank.test\"", "bank.test:443"])
    func aServerHostThatIsNeitherAHostNameNorAnAddressIsRefused(host: String) {
        let broken = Self.valid.replacingOccurrences(of: "  host: bank.test", with: "  host: \(host)")
        let shown = host.hasPrefix("\"") ? String(host.dropFirst().dropLast()) : host
        #expect(error(broken) == "x.yaml: server.host: '\(shown)' is not a host name or IP address")
    }

    @Test(arguments: ["127.0.0.1", "::1", "api.bank-test.example"])
    func aServerHostMayBeAnAddressOrAHostName(host: String) throws {
        let scenario = try load(Self.valid.replacingOccurrences(of: "  host: bank.test", with: "  host: \"\(host)\""))
        #expect(scenario.server.host == host)
    }

    @Test func anIssuerLoopIsRefused() {
        let looped = Self.valid.replacingOccurrences(
            of: "    - id: attacker-ca", with: "    - id: attacker-ca\n      issuer: other\n    - id: other\n      issuer: attacker-ca")
        #expect(error(looped) == "x.yaml: world.authorities[1].issuer: issuers loop: attacker-ca -> other -> attacker-ca")
    }

    @Test(arguments: [
        ("  host: bank.test", "  host: {name: bank.test}", "x.yaml: server.host: expected a string, found a mapping"),
        ("  host: bank.test", "  host: [bank.test]", "x.yaml: server.host: expected a string, found a list"),
        ("  trusted: false", "  trusted: [false]", "x.yaml: expect.trusted: expected true or false, found a list"),
        ("      dnsNames: [bank.test]", "      dnsNames: bank.test", "x.yaml: world.leaves[0].dnsNames: expected a list of strings, found 'bank.test'"),
        ("      dnsNames: [bank.test]", "      dnsNames: [[bank.test]]", "x.yaml: world.leaves[0].dnsNames[0]: expected a string, found a list"),
        (
            "      dnsNames: [bank.test]", "      dnsNames: [bank.test, \"bank test\"]",
            "x.yaml: world.leaves[0].dnsNames[1]: 'bank test' is not a DNS name (letters, digits, '.', '-', '_' and a leading '*.' only)"
        ),
        (
            "      dnsNames: [bank.test]", "      dnsNames: [bank.test]\n      ipAddresses: [127.0.0.1, 300.1.1.1]",
            "x.yaml: world.leaves[0].ipAddresses[1]: '300.1.1.1' is not an IPv4 or IPv6 address"
        ),
        (
            "  leaves:\n    - id: bank-leaf\n      issuer: bank-root\n      dnsNames: [bank.test]", "  leaves: none",
            "x.yaml: world.leaves: expected a list, found 'none'"
        ),
        ("lesson:\n  story: S\n  reveal: R", "lesson: S", "x.yaml: lesson: expected a mapping, found 'S'"),
        ("version: 3", "version:", "x.yaml: version: expected a whole number, found nothing"),
        ("version: 3", "version: three", "x.yaml: version: expected a whole number, found 'three'"),
        (
            "    - id: attacker-ca", "    - id: attacker-ca\n      pathLength: 1.5",
            "x.yaml: world.authorities[1].pathLength: expected a whole number, found '1.5'"
        ),
    ])
    func aValueOfTheWrongKindSaysWhatWasExpectedAndWhatWasFound(replacing: String, with replacement: String, expected: String) {
        #expect(Self.valid.contains(replacing))
        #expect(error(Self.valid.replacingOccurrences(of: replacing, with: replacement)) == expected)
    }

    @Test func aNegativePathLengthNamesTheFileAndTheKey() {
        let broken = Self.valid.replacingOccurrences(of: "    - id: attacker-ca", with: "    - id: attacker-ca\n      pathLength: -1")
        #expect(error(broken) == "x.yaml: world.authorities[1].pathLength: expected 0 or more (how many CAs may follow below this one), found -1")
    }

    @Test(arguments: [
        (
            "      notBefore: \"2026-07-01T00:00:00Z\"\n      notAfter: \"2026-06-01T00:00:00Z\"",
            "x.yaml: world.leaves[0].notAfter: 2026-06-01T00:00:00Z is not after notBefore (2026-07-01T00:00:00Z)"
        ),
        (
            "      notAfter: \"2026-01-01T00:00:00Z\"",
            "x.yaml: world.leaves[0].notAfter: 2026-01-01T00:00:00Z is not after the notBefore the clock gives (2026-05-02T00:00:00Z); give notBefore too"
        ),
        (
            "      notBefore: \"2028-01-01T00:00:00Z\"",
            "x.yaml: world.leaves[0].notBefore: 2028-01-01T00:00:00Z is not before the notAfter the clock gives (2027-06-01T00:00:00Z); give notAfter too"
        ),
    ])
    func aValidityThatEndsBeforeItStartsNamesTheFileAndTheKey(dates: String, expected: String) {
        let broken = Self.valid.replacingOccurrences(of: "      issuer: bank-root", with: "      issuer: bank-root\n" + dates)
        #expect(error(broken) == expected)
    }

    @Test(arguments: [
        (
            "version: 3\ntitle: [unclosed\n",
            "x.yaml: line 3, column 1: not valid YAML: did not find expected ',' or ']' (while parsing a flow sequence that starts at line 2, column 8)"
        ),
        (
            "version: 3\n\ttitle: T\n",
            "x.yaml: line 2, column 1: not valid YAML: found a tab character that violates indentation "
                + "(while scanning a plain scalar that starts at line 1, column 10)"
        ),
        ("version: 3\ntitle: T\ntitle: U\n", "x.yaml: line 2, column 1: 'title' appears twice in one mapping (each key may be given once)"),
        ("version: 3\ntitle: *nothing\n", "x.yaml: line 2, column 8: not valid YAML: found undefined alias"),
        ("version: 3\ntitle: \"T\u{7}\"\n", "x.yaml: line 2, column 10: not valid YAML: control characters are not allowed"),
        ("version: 3\ntitle: {*a:b}\n", "x.yaml: line 2, column 9: not valid YAML: an alias (*name) must be followed by a space, a comma or a closing bracket"),
        ("- version: 3\n", "x.yaml: expected a mapping, found a list"),
        ("", "x.yaml: is empty; a scenario is a YAML mapping that starts with `version: 3`"),
        ("# only a comment\n\n", "x.yaml: is empty; a scenario is a YAML mapping that starts with `version: 3`"),
    ])
    func yamlThatDoesNotParseNamesTheLineAndColumn(text: String, expected: String) {
        #expect(error(text) == expected)
    }

    /// libFuzzer's first lesson finding: a value quoted in a message may hold a line break, and the message is one line all the same.
    @Test func aMessageQuotingAMultiLineValueIsOneLine() {
        #expect(
            error(Self.valid.replacingOccurrences(of: "  leaf: bank-leaf", with: "  leaf: \"bank\\nleaf\""))
                == "x.yaml: server.leaf: no leaf 'bank leaf' in world.leaves")
    }

    @Test func bytesThatAreNotUTF8NameTheirLine() throws {
        let path = NSTemporaryDirectory() + "mitmsim-latin1-\(UUID().uuidString).yaml"
        try Data("version: 3\ntitle: Caf".utf8 + [0xE9] + "\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ScenarioError(file: path, path: "line 2", reason: "holds a byte that is not UTF-8 text (a scenario is a text file)")) {
            try ScenarioLoader.load(path)
        }
    }

    @Test func somethingThatIsNotAFileSaysWhatItIsWithoutWaitingOnAFIFO() throws {
        let directory = NSTemporaryDirectory() + "mitmsim-not-a-file-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/fifo.yaml"
        #expect(mkfifo(fifo, 0o600) == 0)
        let cases = [
            ("/dev/null", "is empty; a scenario is a YAML mapping that starts with `version: 3`"),
            (fifo, "is a FIFO (named pipe), not a regular file; save what it carries to a file and name that"),
            (directory, "is a directory, not a file"),
            (directory + "/missing.yaml", "no such file"),
        ]
        for (path, reason) in cases {
            #expect(throws: ScenarioError(file: path, path: "", reason: reason)) { try ScenarioLoader.load(path) }
        }
    }

    @Test func aNilDomainIsWrittenAsNull() throws {
        let scenario = try load(Self.valid.replacingOccurrences(of: "  library: afnetworking-4", with: "  library: afnetworking-4\n  domain: null"))
        #expect(!scenario.client.passesDomain)
        #expect(
            error(Self.valid.replacingOccurrences(of: "  library: afnetworking-4", with: "  library: afnetworking-4\n  domain: evil.test"))
                == "x.yaml: client.domain: only `domain: null` may be written (the domain is otherwise the server's host)")
    }

    @Test(arguments: [
        ("server.leaf", "x.yaml: server.leaf: no leaf 'nobody' in world.leaves"),
        ("attacker.authority", "x.yaml: attacker.authority: no certificate 'nobody' in world.authorities or world.leaves"),
        ("client.policy.pinnedCertificates", "x.yaml: client.policy.pinnedCertificates[0]: no certificate 'nobody' in world.authorities or world.leaves"),
    ])
    func aScenarioChangedInCodeToNameNothingFailsToRunWithTheKeyPath(key: String, expected: String) throws {
        var scenario = try load(Self.valid)
        scenario.file = "x.yaml"
        switch key {
        case "server.leaf": scenario.server.leaf = "nobody"
        case "attacker.authority": scenario.attacker.authority = "nobody"
        default: scenario.client.policy.pinnedCertificates = ["nobody"]
        }
        let error = #expect(throws: ScenarioError.self) { try ScenarioRunner.run(scenario) }
        #expect(error?.description == expected)
    }
}

/// The request line is built from `request.method` and the path as they are: a line break or a space there would
/// start a header or another request of its own, so each is refused when the lesson loads, in one line.
struct RequestLineLoaderTests {
    @Test(arguments: [
        ("method: \"POST\\r\\nX-Evil: 1\"", "request.method"), ("method: \"GET /\"", "request.method"), ("method: \"\"", "request.method"),
        ("method: \"P\u{00C9}ST\"", "request.method"), ("path: \"/login HTTP/1.1\\r\\n\"", "request.path"), ("path: login", "request.path"),
        ("path: \"/\\e]0;pwned\\a\"", "request.path"),
    ])
    func aMethodOrPathThatWouldBreakTheRequestLineIsRefused(_ line: String, _ key: String) {
        let text = LoaderErrorTests.valid + "\nrequest:\n  \(line)\n"
        let message = LoaderErrorTests().error(text)
        #expect(message?.hasPrefix("x.yaml: \(key): ") == true, "\(message ?? "loaded")")
        #expect(message?.contains(where: \.isNewline) == false, "\(message ?? "")")
    }

    @Test(arguments: ["method: PATCH", "method: M-SEARCH", "path: \"/login?next=%2Fhome\"", "url: \"https://bank.test/a%20b\""])
    func aTokenMethodAndAPathOfVisibleCharactersLoad(_ line: String) throws {
        _ = try LoaderErrorTests().load(LoaderErrorTests.valid + "\nrequest:\n  \(line)\n")
    }
}
