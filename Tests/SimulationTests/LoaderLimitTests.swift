import Foundation
import Simulation
import TestSupport
import Testing

/// A small file cannot cost much: every limit is refused in one line naming the file, the key path and the
/// limit, aliases are measured before Yams follows them, and the worst file that is accepted is cheap.
struct LoaderLimitTests {
    let valid = LoaderErrorTests.valid

    func error(_ text: String) -> String? { LoaderErrorTests().error(text) }

    /// The valid lesson with `count` more authorities, each made by `authority(index)`.
    func adding(authorities count: Int, _ authority: (Int) -> String = { "    - id: ca-\($0)\n" }) -> String {
        valid.replacingOccurrences(of: "  authorities:\n", with: "  authorities:\n" + (0..<count).map(authority).joined())
    }

    @Test func aFileLargerThan64KiBIsRefusedBeforeItIsParsed() {
        let padded = valid + "\n# " + String(repeating: "x", count: ScenarioLimits.fileBytes) + "\n"
        #expect(error(padded) == "x.yaml: is larger than 64 KiB, the most mitmsim reads from a scenario file")
    }

    @Test func aliasesThatRepeatAStringPastTheTextLimitAreRefusedAtTheirKey() {
        let aliases = Array(repeating: "*big", count: 100).joined(separator: ", ")
        let bomb = valid.replacingOccurrences(
            of: "      dnsNames: [bank.test]", with: "      dnsNames: [bank.test, &big \(String(repeating: "a", count: 2_000)), \(aliases)]")
        #expect(
            error(bomb)
                == "x.yaml: world.leaves[0].dnsNames: holds more than 128 KiB of text once its aliases are followed, the most a scenario may "
                + "(aliases repeat what they name)")
    }

    /// Ten lines that stand for a billion values: before aliases were measured, Yams spent 24 s hashing the key.
    @Test func nestedAliasesUsedAsAKeyAreRefusedAtOnce() {
        var lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
        for (previous, name) in zip("abcdefgh", "bcdefghi") {
            lines.append("\(name): &\(name) [\(Array(repeating: "*\(previous)", count: 10).joined(separator: ", "))]")
        }
        let start = Date()
        #expect(
            error((lines + ["? *i", ": 1"]).joined(separator: "\n"))
                == "x.yaml: d: holds more than 10000 values once its aliases are followed, the most a scenario may (aliases repeat what they name)")
        #expect(Date().timeIntervalSince(start) < 5)
    }

    @Test func aliasesWithinTheLimitsLoad() throws {
        let shared = valid.replacingOccurrences(of: "      dnsNames: [bank.test]", with: "      dnsNames: &names [bank.test, www.bank.test]")
            .replacingOccurrences(
                of: "  host: bank.test", with: "  host: bank.test\n  chain: &chain []")
        let scenario = try LoaderErrorTests().load(
            shared.replacingOccurrences(of: "  authority: attacker-ca", with: "  authority: attacker-ca\n  chain: *chain"))
        #expect(scenario.world.leaves[0].dnsNames == ["bank.test", "www.bank.test"])
    }

    @Test func moreThan32CertificatesAreRefused() {
        #expect(
            error(adding(authorities: 31))
                == "x.yaml: world: holds 34 certificates (authorities, leaves and the client identity), the most is 32")
    }

    @Test func moreThan8TriesOrMoreThan32KeysInATryAreRefused() throws {
        func tries(_ count: Int, keys: Int = 1) -> String {
            let one = "    - keys: \"\(Array(repeating: "a", count: keys).joined(separator: " "))\"\n      trusted: true\n"
            return valid.replacingOccurrences(of: "  reveal: R\n", with: "  reveal: R\n  tries:\n" + String(repeating: one, count: count))
        }
        #expect(try LoaderErrorTests().load(tries(8, keys: 32)).lesson.tries.count == 8)
        #expect(error(tries(9)) == "x.yaml: lesson.tries: holds 9 tries, the most is 8 (each is one more run)")
        #expect(error(tries(1, keys: 33)) == "x.yaml: lesson.tries[0].keys: names 33 keys, the most is 32")
    }

    @Test func moreThan100NamesOnACertificateAreRefused() {
        let names = (0...100).map { "n\($0).bank.test" }.joined(separator: ", ")
        #expect(
            error(valid.replacingOccurrences(of: "      dnsNames: [bank.test]", with: "      dnsNames: [\(names)]"))
                == "x.yaml: world.leaves[0].dnsNames: holds 101 names (dnsNames and ipAddresses together), the most is 100")
    }

    @Test func aDNSNameLongerThanDNSAllowsIsRefused() {
        let long = Array(repeating: String(repeating: "a", count: 63), count: 4).joined(separator: ".")
        #expect(
            error(valid.replacingOccurrences(of: "      dnsNames: [bank.test]", with: "      dnsNames: [bank.test, \(long)]"))
                == "x.yaml: world.leaves[0].dnsNames[1]: has 255 characters, the most a DNS name may have is 253")
    }

    @Test(arguments: [
        ("      issuer: bank-root", "      issuer: bank-root\n      commonName: \(String(repeating: "c", count: 65))", "world.leaves[0].commonName", 65),
        ("      issuer: bank-root", "      issuer: bank-root\n      organization: \"\"", "world.leaves[0].organization", 0),
        ("    - id: attacker-ca", "    - id: attacker-ca\n      name: \(String(repeating: "é", count: 65))", "world.authorities[1].name", 65),
    ])
    func aSubjectNameOutsideWhatX509AllowsIsRefused(replacing: String, with replacement: String, path: String, found: Int) {
        #expect(
            error(valid.replacingOccurrences(of: replacing, with: replacement))
                == "x.yaml: \(path): expected 1 to 64 characters (the most X.509 allows), found \(found)")
    }

    @Test(arguments: ["../../outside", "a/b", ".hidden", "", String(repeating: "i", count: 65), "naïve"])
    func anIdThatCouldNotBeAFileNameIsRefused(id: String) {
        let renamed = valid.replacingOccurrences(of: "    - id: attacker-ca", with: "    - id: \"\(id)\"")
            .replacingOccurrences(of: "  authority: attacker-ca", with: "  authority: \"\(id)\"")
        #expect(
            error(renamed)
                == "x.yaml: world.authorities[1].id: '\(id)' is not an id: 1 to 64 letters, digits, '-', '_' or '.', not starting with '.' "
                + "(it becomes a file name)")
    }

    @Test func aFourthRSAKeyOrAnyBesideAnRSA3072KeyIsRefused() throws {
        func authorities(_ types: [String]) -> String {
            adding(authorities: types.count) { "    - id: ca-\($0)\n      keyType: \(types[$0])\n" }
        }
        let tooMany =
            "x.yaml: world.authorities[3].keyType: one RSA key too many: a world may generate 3 rsa1024 or rsa2048 keys, or one rsa3072 key and no other RSA key "
            + "(each takes tens to hundreds of milliseconds to make; p256 takes microseconds)"
        #expect(error(authorities(["rsa2048", "rsa2048", "rsa2048", "rsa2048"])) == tooMany)
        #expect(error(authorities(["rsa1024", "rsa2048", "rsa1024", "rsa1024"])) == tooMany)
        #expect(error(authorities(["rsa3072", "rsa2048"])) == tooMany.replacingOccurrences(of: "[3]", with: "[1]"))
        #expect(error(authorities(["rsa2048", "rsa3072"])) == tooMany.replacingOccurrences(of: "[3]", with: "[1]"))
        #expect(try LoaderErrorTests().load(authorities(["rsa2048", "p256", "rsa2048", "rsa2048"])).world.authorities.count == 6)
        #expect(try LoaderErrorTests().load(authorities(["rsa3072", "p256"])).world.authorities.count == 4)
    }

    @Test func aLeafThatBorrowsAKeyGeneratesNone() throws {
        let leaves = (0..<4).map { "    - id: leaf-\($0)\n      issuer: bank-root\n      keyType: rsa2048\n" + ($0 == 0 ? "" : "      keyOf: leaf-0\n") }
        let borrowing = valid.replacingOccurrences(of: "  leaves:\n", with: "  leaves:\n" + leaves.joined())
        #expect(try LoaderErrorTests().load(borrowing).world.leaves.count == 5)
    }

    @Test func aChainOfMoreThan32IdsIsRefused() {
        let chain = Array(repeating: "bank-root", count: 33).joined(separator: ", ")
        #expect(
            error(valid.replacingOccurrences(of: "  leaf: bank-leaf", with: "  leaf: bank-leaf\n  chain: [\(chain)]"))
                == "x.yaml: server.chain: names 33 certificates, the most is 32")
    }

    @Test func aDirectoryOfMoreThan256ScenarioFilesIsRefusedBeforeAnyIsRead() throws {
        let directory = NSTemporaryDirectory() + "mitmsim-many-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for index in 0...ScenarioLimits.filesPerDirectory { #expect(FileManager.default.createFile(atPath: "\(directory)/\(index).yaml", contents: nil)) }
        #expect(
            throws: ScenarioError(file: directory, path: "", reason: "holds more than 256 scenario files, the most mitmsim reads from one directory")
        ) { try ScenarioLoader.loadAll(in: directory) }
    }

    /// Every built-in lesson (the catalog's files, which `ScenarioCatalogTests` finds built in) stays far inside the limits:
    /// a lesson that comes near one is a sign the limit is wrong.
    @Test func theBuiltInLessonsStayFarInsideEveryLimit() throws {
        for scenario in Lessons.all {
            let world = scenario.world
            let size = try FileManager.default.attributesOfItem(atPath: "\(CatalogTests.scenarios)/\(scenario.id).yaml")[.size] as? Int ?? .max
            #expect(size * 8 < ScenarioLimits.fileBytes, "\(scenario.id)")
            #expect((world.authorities.count + world.leaves.count + 1) * 4 <= ScenarioLimits.certificates, "\(scenario.id)")
            #expect(world.leaves.allSatisfy { ($0.dnsNames.count + $0.ipAddresses.count) * 10 <= ScenarioLimits.namesPerCertificate }, "\(scenario.id)")
            #expect(world.authorities.filter { $0.keyType != .p256 }.count + world.leaves.filter { $0.keyType != .p256 }.count <= 1, "\(scenario.id)")
        }
    }

    /// The most a scenario may ask for, in one file: 32 certificates, 100 names on each leaf by alias, three RSA-2048 keys.
    static func worstAccepted() -> String {
        let names = (1..<ScenarioLimits.namesPerCertificate).map { "host-\($0)-\(String(repeating: "n", count: 20)).bank.test" }.joined(separator: ", ")
        let leaves = (0..<30).map { index in
            "    - id: leaf-\(index)\n      issuer: bank-intermediate\n"
                + (index == 0 ? "      dnsNames: &names [bank.test, \(names)]\n      keyType: rsa2048\n" : "      dnsNames: *names\n")
        }
        return LoaderErrorTests.valid
            .replacingOccurrences(
                of: "    - id: bank-root\n      deviceTrust: system\n    - id: attacker-ca\n",
                with: "    - id: bank-root\n      deviceTrust: system\n      keyType: rsa2048\n    - id: bank-intermediate\n      issuer: bank-root\n"
                    + "      keyType: rsa2048\n"
            )
            .replacingOccurrences(of: "    - id: bank-leaf\n      issuer: bank-root\n      dnsNames: [bank.test]\n", with: leaves.joined())
            .replacingOccurrences(of: "  leaf: bank-leaf", with: "  leaf: leaf-0\n  chain: [bank-intermediate]")
            .replacingOccurrences(of: "  attack: forge\n  authority: attacker-ca", with: "  attack: forge\n  authority: bank-intermediate")
            .replacingOccurrences(of: "pinnedCertificates: [bank-leaf]", with: "pinnedCertificates: [leaf-0]")
    }

    @Test func theWorstAcceptedScenarioLoadsAndBuildsItsWorldInWellUnderFiveSeconds() throws {
        let start = Date()
        let scenario = try LoaderErrorTests().load(Self.worstAccepted())
        let world = try World(scenario)
        #expect(world.entries.count == ScenarioLimits.certificates)
        #expect(world.entries.last?.certificate.dnsNames.count == ScenarioLimits.namesPerCertificate)
        #expect(Date().timeIntervalSince(start) < 5)
    }
}
