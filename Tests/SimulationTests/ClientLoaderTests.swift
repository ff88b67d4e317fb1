import Foundation
import PKI
import Policies
import Simulation
import TestSupport
import Testing

/// The whole iOS client in a scenario file: the AFNetworking release, the challenge handler, App Transport
/// Security (under `client.ats` or in a real Info.plist), the `.p12` password, the request's URL, and the
/// servers and certificates that break ATS rules. Each loads to the values it says, or is refused in one line.
struct ClientLoaderTests {
    static let valid = LoaderErrorTests.valid

    /// A scenario file in a directory of its own, with `files` (Info.plists) beside it.
    final class Folder {
        let path = NSTemporaryDirectory() + "mitmsim-client-\(UUID().uuidString)"

        init(files: [String: Data] = [:]) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for (name, data) in files { try data.write(to: URL(fileURLWithPath: "\(path)/\(name)")) }
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// Loads `text` as `x.yaml` in this directory; errors name the file `x.yaml`, and this directory `DIR`.
        func load(_ text: String) throws -> Scenario {
            try text.write(toFile: "\(path)/x.yaml", atomically: true, encoding: .utf8)
            do {
                return try ScenarioLoader.load("\(path)/x.yaml")
            } catch let error as ScenarioError {
                throw ScenarioError(file: "x.yaml", path: error.path, reason: error.reason.replacingOccurrences(of: path, with: "DIR"))
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
    }

    /// The valid lesson with `lines` added to its `client` mapping.
    static func client(_ lines: String) -> String {
        valid.replacingOccurrences(of: "  library: afnetworking-4\n", with: "  library: afnetworking-4\n" + lines + "\n")
    }

    /// The valid lesson with `library` and `policy` as the client's.
    static func library(_ library: String, policy: String) -> String {
        valid.replacingOccurrences(of: "  library: afnetworking-4", with: "  library: \(library)")
            .replacingOccurrences(of: "    pinningMode: certificate\n    pinnedCertificates: [bank-leaf]", with: policy)
    }

    func load(_ text: String) throws -> Scenario { try Folder().load(text) }
    func error(_ text: String) -> String? { try? Folder().error(text) }

    // MARK: - What a file written before these keys means

    @Test("A lesson written before these keys is AFNetworking 4 behind its session manager, with ATS fully on, over https")
    func anOldLessonKeepsItsMeaning() throws {
        let scenario = try load(Self.valid)
        #expect(scenario.client.library == .afnetworking(.v4))
        #expect(scenario.client.challengeHandler == .afnetworking)
        #expect(scenario.client.ats == AppTransportSecurity())
        #expect(!scenario.client.ats.linkedBeforeIOS9)
        #expect(scenario.client.infoPlist == nil)
        #expect(scenario.client.pkcs12Password == nil)
        #expect(scenario.client.policy.validatesCertificateChain)
        #expect(scenario.client.policy.validatesDomainName)
        #expect(scenario.request.scheme == .https)
        #expect(scenario.request.path == "/login")
        #expect(scenario.server.forwardSecrecy)
        #expect(!scenario.needsWeakCryptography)
    }

    // MARK: - The library, by version

    @Test(
        "validatesDomainName left out takes the release's default for the pinning mode",
        arguments: [
            ("afnetworking-4", "none", true), ("afnetworking-2.6", "none", true), ("afnetworking-2.5.3", "none", true),
            ("afnetworking-2.5.2", "none", false), ("afnetworking-2.5.2", "certificate", true), ("afnetworking-2.5.0", "publicKey", true),
            ("afnetworking-2.5.1", "none", false), ("afnetworking-2.2", "none", false), ("afnetworking-2.1", "certificate", true),
            ("afnetworking-2.0", "certificate", false), ("afnetworking-2.0", "none", false),
        ])
    func validatesDomainNameDefaultsByRelease(library: String, mode: String, expected: Bool) throws {
        let scenario = try load(Self.library(library, policy: "    pinningMode: \(mode)\n    pinnedCertificates: [bank-leaf]"))
        #expect(scenario.client.library.rawValue == library)
        #expect(scenario.client.policy.pinningMode.rawValue == mode)
        #expect(scenario.client.policy.validatesDomainName == expected)
    }

    @Test("validatesDomainName written down wins over the release's default")
    func validatesDomainNameWrittenWins() throws {
        let scenario = try load(Self.library("afnetworking-2.5.2", policy: "    validatesDomainName: true"))
        #expect(scenario.client.policy.validatesDomainName)
        #expect(scenario.client.policy.pinningMode == .none)
    }

    @Test(
        "validatesCertificateChain is read for the releases that have it",
        arguments: ["afnetworking-2.1", "afnetworking-2.2", "afnetworking-2.5.0", "afnetworking-2.5.1", "afnetworking-2.5.2", "afnetworking-2.5.3"])
    func validatesCertificateChainIsRead(library: String) throws {
        let scenario = try load(Self.library(library, policy: "    validatesCertificateChain: false"))
        #expect(!scenario.client.policy.validatesCertificateChain)
        #expect(try load(Self.library(library, policy: "    pinningMode: none")).client.policy.validatesCertificateChain)
    }

    @Test(
        "A key the release does not have is refused with the release that added or removed it",
        arguments: [
            (
                "afnetworking-4", "    validatesCertificateChain: true",
                "x.yaml: client.policy.validatesCertificateChain: afnetworking-4 has no validatesCertificateChain (AFNetworking 2.6 removed it)"
            ),
            (
                "afnetworking-2.6", "    validatesCertificateChain: false",
                "x.yaml: client.policy.validatesCertificateChain: afnetworking-2.6 has no validatesCertificateChain (AFNetworking 2.6 removed it)"
            ),
            (
                "afnetworking-2.0", "    validatesCertificateChain: true",
                "x.yaml: client.policy.validatesCertificateChain: afnetworking-2.0 has no validatesCertificateChain (AFNetworking 2.1 added it)"
            ),
            (
                "afnetworking-2.0", "    validatesDomainName: false",
                "x.yaml: client.policy.validatesDomainName: afnetworking-2.0 has no validatesDomainName "
                    + "(AFNetworking 2.1 added it, with evaluateServerTrust:forDomain:)"
            ),
            (
                "afnetworking-2.0", "    pinMode: none",
                "x.yaml: client.policy.pinMode: unknown key (expected one of: allowInvalidCertificates, pinnedCertificates, pinningMode)"
            ),
            (
                "afnetworking-4", "    pinMode: none",
                "x.yaml: client.policy.pinMode: unknown key (expected one of: allowInvalidCertificates, pinnedCertificates, pinningMode, validatesDomainName)"
            ),
        ])
    func aKeyTheReleaseLacksIsRefused(library: String, policy: String, expected: String) {
        #expect(error(Self.library(library, policy: policy)) == expected)
    }

    @Test("AFNetworking 2.0 cannot be handed a nil domain: it is handed none at all")
    func aNilDomainNeedsForDomain() throws {
        let text = Self.library("afnetworking-2.0", policy: "    pinningMode: none").replacingOccurrences(
            of: "  library: afnetworking-2.0", with: "  library: afnetworking-2.0\n  domain: null")
        #expect(
            error(text)
                == "x.yaml: client.domain: afnetworking-2.0 is handed no domain at all (its evaluateServerTrust: takes none; AFNetworking 2.1 added forDomain:)"
        )
        #expect(try !load(Self.client("  domain: null")).client.passesDomain)
    }

    @Test("A client without its policy says the policy is missing")
    func aMissingPolicyIsNamed() {
        #expect(
            error(Self.valid.replacingOccurrences(of: "  policy:\n    pinningMode: certificate\n    pinnedCertificates: [bank-leaf]\n", with: ""))
                == "x.yaml: client.policy: missing")
    }

    // MARK: - The platform

    @Test("A lesson that names no platform runs on today's iOS, and names ios16, ios13 or ios12 otherwise")
    func thePlatformIsTodaysIOSUnlessNamed() throws {
        #expect(try load(Self.valid).client.platform == .iOS16)
        for platform in Platform.iOS {
            #expect(try load(Self.client("  platform: \(platform.rawValue)")).client.platform == platform)
        }
        #expect(Platform.iOS.map(\.rawValue) == ["ios16", "ios13", "ios12"])
    }

    // MARK: - The challenge handler

    @Test("The challenge handler is afnetworking, acceptAll, systemDefault or identityBlock", arguments: ChallengeHandler.allCases)
    func theChallengeHandlerIsRead(handler: ChallengeHandler) throws {
        #expect(try load(Self.client("  challengeHandler: \(handler.rawValue)")).client.challengeHandler == handler)
    }

    @Test("Any other challenge handler is refused with the four choices")
    func anUnknownChallengeHandlerIsRefused() {
        #expect(
            error(Self.client("  challengeHandler: trustEverything"))
                == "x.yaml: client.challengeHandler: 'trustEverything' is not one of: acceptAll, afnetworking, identityBlock, systemDefault")
    }

    // MARK: - App Transport Security under client.ats

    static let atsYAML = """
          ats:
            NSAllowsArbitraryLoads: true
            NSExceptionDomains:
              bank.test:
                NSIncludesSubdomains: true
                NSExceptionAllowsInsecureHTTPLoads: true
                NSExceptionMinimumTLSVersion: TLSv1.0
                NSExceptionRequiresForwardSecrecy: false
              api.bank.test: {}
        """

    static let atsValue = AppTransportSecurity(
        allowsArbitraryLoads: true,
        exceptionDomains: [
            "bank.test": .init(includesSubdomains: true, allowsInsecureHTTPLoads: true, minimumTLSVersion: .tls10, requiresForwardSecrecy: false),
            "api.bank.test": .init(),
        ])

    @Test("client.ats reads Apple's Info.plist keys, with Apple's defaults for the keys a domain leaves out")
    func atsKeysAreRead() throws {
        let scenario = try load(Self.client(Self.atsYAML))
        #expect(scenario.client.ats == Self.atsValue)
        #expect(scenario.client.infoPlist == nil)
    }

    @Test(
        "Every minimum TLS version Apple names is read",
        arguments: [("TLSv1.0", TLSVersion.tls10), ("TLSv1.1", .tls11), ("TLSv1.2", .tls12), ("TLSv1.3", .tls13)])
    func everyMinimumTLSVersionIsRead(name: String, version: TLSVersion) throws {
        let scenario = try load(Self.client("  ats:\n    NSExceptionDomains:\n      bank.test:\n        NSExceptionMinimumTLSVersion: \(name)"))
        #expect(scenario.client.ats.exceptionDomains["bank.test"]?.minimumTLSVersion == version)
    }

    @Test("An app linked before iOS 9 has ATS off, whatever its keys say")
    func linkedBeforeIOS9() throws {
        let scenario = try load(Self.client("  linkedBeforeIOS9: true\n" + Self.atsYAML))
        #expect(scenario.client.ats.linkedBeforeIOS9)
        #expect(scenario.client.ats.allowsArbitraryLoads)
        #expect(try !load(Self.client("  linkedBeforeIOS9: false")).client.ats.linkedBeforeIOS9)
    }

    @Test(
        "A broken ATS key is refused with its key path",
        arguments: [
            (
                "  ats:\n    NSAllowsLocalNetworking: true",
                "x.yaml: client.ats.NSAllowsLocalNetworking: NSAllowsLocalNetworking is an ATS key mitmsim does not model "
                    + "(it models NSAllowsArbitraryLoads, NSExceptionDomains and NSPinnedDomains)"
            ),
            (
                "  ats:\n    NSAllowArbitraryLoads: true",
                "x.yaml: client.ats.NSAllowArbitraryLoads: unknown key (expected one of: NSAllowsArbitraryLoads, NSExceptionDomains, NSPinnedDomains)"
            ),
            (
                "  ats:\n    NSExceptionDomains:\n      bank.test:\n        NSRequiresCertificateTransparency: true",
                "x.yaml: client.ats.NSExceptionDomains.bank.test.NSRequiresCertificateTransparency: NSRequiresCertificateTransparency is an ATS key "
                    + "mitmsim does not model (it models NSIncludesSubdomains, NSExceptionAllowsInsecureHTTPLoads, NSExceptionMinimumTLSVersion "
                    + "and NSExceptionRequiresForwardSecrecy)"
            ),
            (
                "  ats:\n    NSExceptionDomains:\n      bank.test:\n        NSIncludeSubdomains: true",
                "x.yaml: client.ats.NSExceptionDomains.bank.test.NSIncludeSubdomains: unknown key (expected one of: NSExceptionAllowsInsecureHTTPLoads, "
                    + "NSExceptionMinimumTLSVersion, NSExceptionRequiresForwardSecrecy, NSIncludesSubdomains)"
            ),
            (
                "  ats:\n    NSExceptionDomains:\n      bank.test:\n        NSExceptionMinimumTLSVersion: \"1.2\"",
                "x.yaml: client.ats.NSExceptionDomains.bank.test.NSExceptionMinimumTLSVersion: '1.2' is not one of: TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3"
            ),
            (
                "  ats:\n    NSExceptionDomains:\n      \"https://bank.test\": {}",
                "x.yaml: client.ats.NSExceptionDomains.https://bank.test: 'https://bank.test' is not a domain name (write the bare name: no scheme, "
                    + "port, path or wildcard; NSIncludesSubdomains covers subdomains)"
            ),
            (
                "  ats:\n    NSExceptionDomains:\n      \"*.bank.test\": {}",
                "x.yaml: client.ats.NSExceptionDomains.*.bank.test: '*.bank.test' is not a domain name (write the bare name: no scheme, "
                    + "port, path or wildcard; NSIncludesSubdomains covers subdomains)"
            ),
            (
                "  ats:\n    NSExceptionDomains:\n      Bank.test: {}",
                "x.yaml: client.ats.NSExceptionDomains.Bank.test: 'Bank.test' has capital letters; write the domain in lowercase"
            ),
            ("  ats:\n    NSAllowsArbitraryLoads: sometimes", "x.yaml: client.ats.NSAllowsArbitraryLoads: expected true or false, found 'sometimes'"),
            ("  ats:\n    NSExceptionDomains: [bank.test]", "x.yaml: client.ats.NSExceptionDomains: expected a mapping, found a list"),
            ("  ats: true", "x.yaml: client.ats: expected a mapping, found 'true'"),
        ])
    func aBrokenATSKeyIsRefused(lines: String, expected: String) {
        #expect(error(Self.client(lines)) == expected)
    }

    // MARK: - App Transport Security from a real Info.plist

    /// An app's Info.plist: the same ATS settings as `atsYAML`, among keys mitmsim ignores.
    static var infoPlist: [String: Any] {
        [
            "CFBundleIdentifier": "test.bank.app", "UIRequiredDeviceCapabilities": ["arm64"], "CFBundleURLTypes": [["CFBundleURLSchemes": ["bank"]]],
            "NSAppTransportSecurity": [
                "NSAllowsArbitraryLoads": true,
                "NSExceptionDomains": [
                    "bank.test": [
                        "NSIncludesSubdomains": true, "NSExceptionAllowsInsecureHTTPLoads": true, "NSExceptionMinimumTLSVersion": "TLSv1.0",
                        "NSExceptionRequiresForwardSecrecy": false,
                    ],
                    "api.bank.test": [String: Any](),
                ],
            ],
        ]
    }

    static func plist(_ object: Any, _ format: PropertyListSerialization.PropertyListFormat) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0)
    }

    @Test(
        "client.infoPlist reads NSAppTransportSecurity from an XML or a binary Info.plist next to the scenario",
        arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func anInfoPlistIsRead(format: PropertyListSerialization.PropertyListFormat) throws {
        let data = try Self.plist(Self.infoPlist, format)
        #expect(data.starts(with: format == .binary ? Data("bplist00".utf8) : Data("<?xml".utf8)))
        let folder = try Folder(files: ["Info.plist": data])
        let scenario = try folder.load(Self.client("  infoPlist: Info.plist"))
        #expect(scenario.client.ats == Self.atsValue)
        #expect(scenario.client.infoPlist == "Info.plist")
        #expect(try folder.load(Self.client("  infoPlist: \(folder.path)/Info.plist")).client.ats == Self.atsValue)
    }

    @Test("An Info.plist without NSAppTransportSecurity leaves ATS fully on")
    func anInfoPlistWithoutATS() throws {
        let folder = try Folder(files: ["Info.plist": try Self.plist(["CFBundleIdentifier": "test.bank.app"], .binary)])
        #expect(try folder.load(Self.client("  infoPlist: Info.plist")).client.ats == AppTransportSecurity())
    }

    @Test("A broken Info.plist is refused with the scenario key, the plist file and the key path inside it")
    func aBrokenInfoPlistNamesItsKeyPath() throws {
        func ats(_ keys: [String: Any]) -> [String: Any] { ["CFBundleIdentifier": "test.bank.app", "NSAppTransportSecurity": keys] }
        let cases: [(Any, String)] = [
            (
                ats(["NSExceptionDomains": ["bank.test": ["NSExceptionMinimumTLSVersion": "TLSv1.4"]]]),
                "NSAppTransportSecurity.NSExceptionDomains.bank.test.NSExceptionMinimumTLSVersion: 'TLSv1.4' is not one of: TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3"
            ),
            (
                ats(["NSAllowsLocalNetworking": true]),
                "NSAppTransportSecurity.NSAllowsLocalNetworking: NSAllowsLocalNetworking is an ATS key mitmsim does not model "
                    + "(it models NSAllowsArbitraryLoads, NSExceptionDomains and NSPinnedDomains)"
            ),
            (
                ats(["NSAllowsArbitraryLoads": "YES"]),
                "NSAppTransportSecurity.NSAllowsArbitraryLoads: expected true or false"
            ),
            (
                ats(["NSExceptionDomains": ["bank.test:443": [String: Any]()]]),
                "NSAppTransportSecurity.NSExceptionDomains.bank.test:443: 'bank.test:443' is not a domain name (write the bare name: no scheme, "
                    + "port, path or wildcard; NSIncludesSubdomains covers subdomains)"
            ),
        ]
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            for (object, expected) in cases {
                let folder = try Folder(files: ["Info.plist": try Self.plist(object, format)])
                #expect(folder.error(Self.client("  infoPlist: Info.plist")) == "x.yaml: client.infoPlist: DIR/Info.plist: \(expected)", "\(format)")
            }
        }
    }

    @Test(
        "A file that is no Info.plist is refused in words",
        arguments: [
            ("not a plist at all\n", "is neither an XML nor a binary property list (an Info.plist is one or the other)"),
            ("", "is empty; an Info.plist is an XML or binary property list"),
            ("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>A</key>", "line 1: is not well-formed XML"),
            ("<?xml version=\"1.0\"?><plist version=\"1.0\"><array/></plist>", "expected a mapping"),
        ])
    func aFileThatIsNoInfoPlistIsRefused(text: String, reason: String) throws {
        let folder = try Folder(files: ["Info.plist": Data(text.utf8)])
        let message = folder.error(Self.client("  infoPlist: Info.plist"))
        #expect(message?.hasPrefix("x.yaml: client.infoPlist: DIR/Info.plist: \(reason)") == true, "\(message ?? "loaded")")
        #expect(message?.contains { $0.isNewline } == false)
    }

    @Test("client.infoPlist is refused beside client.ats, for a missing file, and in a scenario that is no file")
    func infoPlistMisuse() throws {
        let folder = try Folder(files: ["Info.plist": try Self.plist(Self.infoPlist, .xml)])
        #expect(
            folder.error(Self.client("  infoPlist: Info.plist\n  ats: {}"))
                == "x.yaml: client.infoPlist: give the ATS keys either under client.ats or in client.infoPlist, not both")
        #expect(folder.error(Self.client("  infoPlist: Missing.plist")) == "x.yaml: client.infoPlist: DIR/Missing.plist: no such file")
        #expect(folder.error(Self.client("  infoPlist: .")) == "x.yaml: client.infoPlist: DIR/.: is a directory, not a file")
        #expect(throws: ScenarioError.self) { try ScenarioLoader.decode(Data(Self.client("  infoPlist: Info.plist").utf8), file: "catalog:x.yaml", id: "x") }
        do {
            _ = try ScenarioLoader.decode(Data(Self.client("  infoPlist: Info.plist").utf8), file: "catalog:x.yaml", id: "x")
        } catch {
            #expect(
                "\(error)"
                    == "catalog:x.yaml: client.infoPlist: names a file next to the scenario, and this scenario is not read from a file "
                    + "(write the keys under client.ats instead)")
        }
    }

    @Test("A hostile Info.plist costs nothing: deep nesting is refused at the first level too deep, and shared objects are never expanded")
    func aHostileInfoPlistIsCheap() throws {
        let depth = 10_000
        let deep =
            "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>A</key>" + String(repeating: "<array>", count: depth)
            + String(repeating: "</array>", count: depth) + "</dict></plist>"
        // Closing tags hidden in a comment or an attribute value must not make the nesting look shallow.
        let disguised =
            "<?xml version=\"1.0\"?><!-- " + String(repeating: "</array>", count: depth) + " --><plist version=\"1.0\"><dict><key>A</key>"
            + String(repeating: "<array a=\"/>\">", count: depth) + "</dict></plist>"
        let oversized = Data(repeating: UInt8(ascii: " "), count: ScenarioLimits.infoPlistBytes + 1)
        let folder = try Folder(files: [
            "deep.plist": Data(deep.utf8), "disguised.plist": Data(disguised.utf8), "big.plist": oversized, "bomb.plist": Self.sharedObjectBomb(levels: 60),
        ])
        let nested =
            "line 1, <array>: nests elements more than \(ScenarioLimits.infoPlistDepth) deep, the most mitmsim reads (an Info.plist needs fewer than 10)"
        #expect(folder.error(Self.client("  infoPlist: deep.plist")) == "x.yaml: client.infoPlist: DIR/deep.plist: \(nested)")
        #expect(folder.error(Self.client("  infoPlist: disguised.plist")) == "x.yaml: client.infoPlist: DIR/disguised.plist: \(nested)")
        #expect(
            folder.error(Self.client("  infoPlist: big.plist"))
                == "x.yaml: client.infoPlist: DIR/big.plist: is larger than 256 KiB, the most mitmsim reads from an Info.plist")
        let start = Date()
        #expect(try folder.load(Self.client("  infoPlist: bomb.plist")).client.ats == AppTransportSecurity(allowsArbitraryLoads: true))
        #expect(Date().timeIntervalSince(start) < 2)
    }

    /// A binary plist whose array at each level holds the level below twice: 2^`levels` arrays once
    /// expanded, in a few hundred bytes, under a key mitmsim ignores; NSAllowsArbitraryLoads is YES.
    static func sharedObjectBomb(levels: Int) -> Data {
        let big = BinaryPlist.big
        var objects: [[UInt8]] = [[0xA0]]  // object 0: an empty array
        for level in 1...levels { objects.append([0xA2] + big(level - 1, 2) + big(level - 1, 2)) }
        let first = objects.count
        objects += ["Bomb", "NSAppTransportSecurity", "NSAllowsArbitraryLoads"].map(BinaryPlist.string) + [[0x09]]  // 0x09: true
        let ats = objects.count
        objects.append([0xD1] + big(first + 2, 2) + big(first + 3, 2))
        let top = objects.count
        objects.append([0xD2] + big(first, 2) + big(first + 1, 2) + big(levels, 2) + big(ats, 2))
        return BinaryPlist.file(objects, top: top, offsetSize: 4, referenceSize: 2)
    }

    // MARK: - The client certificate's password

    static let twoWay = valid.replacingOccurrences(
        of: "  leaves:", with: "  clientIdentity:\n    id: client\n    issuer: bank-root\n    password: s3cret\n  leaves:")

    @Test("pkcs12Password is the password the app passes to SecPKCS12Import; left out, the .p12's own")
    func thePKCS12Password() throws {
        let wrong = try load(Self.twoWay.replacingOccurrences(of: "  library: afnetworking-4", with: "  library: afnetworking-4\n  pkcs12Password: guess"))
        #expect(wrong.client.pkcs12Password == "guess")
        #expect(wrong.world.clientIdentity?.password == "s3cret")
        #expect(try load(Self.twoWay).client.pkcs12Password == nil)
        #expect(
            error(Self.client("  pkcs12Password: guess"))
                == "x.yaml: client.pkcs12Password: needs world.clientIdentity (the .p12 the app imports with this password)")
    }

    // MARK: - The request's URL

    @Test(
        "request.url gives the scheme and the path; the host must be the server's",
        arguments: [
            ("https://bank.test/login", RequestSpec.Scheme.https, "/login"), ("http://bank.test/api/v1?user=alice", .http, "/api/v1?user=alice"),
            ("http://bank.test", .http, "/"), ("HTTPS://bank.test/a%20b", .https, "/a%20b"),
        ])
    func requestURL(url: String, scheme: RequestSpec.Scheme, path: String) throws {
        let scenario = try load(Self.valid.replacingOccurrences(of: "expect:", with: "request:\n  url: \"\(url)\"\nexpect:"))
        #expect(scenario.request.scheme == scheme)
        #expect(scenario.request.path == path)
        #expect(scenario.request.method == "POST")
    }

    @Test(
        "A request.url that is not the server's https:// or http:// URL is refused",
        arguments: [
            (
                "url: \"https://evil.test/login\"",
                "'https://evil.test/login' names the host 'evil.test', not server.host 'bank.test' (the app sends its request to the server)"
            ),
            ("url: \"ftp://bank.test/x\"", "'ftp://bank.test/x' is neither https:// nor http://"),
            ("url: /login", "'/login' is not a URL such as https://bank.test/login"),
            (
                "url: \"https://bank.test:8443/login\"",
                "'https://bank.test:8443/login' has more than a scheme, a host, a path and a query (no user, port or fragment: the app reaches server.host "
                    + "on the port mitmsim gives it)"
            ),
            ("url: \"https://bank.test/login\"\n  path: /login", "give either request.url or request.path, not both"),
        ])
    func aBrokenRequestURLIsRefused(lines: String, reason: String) {
        #expect(error(Self.valid.replacingOccurrences(of: "expect:", with: "request:\n  \(lines)\nexpect:")) == "x.yaml: request.url: \(reason)")
    }

    // MARK: - Servers and certificates that break ATS rules

    static func rsaServer(_ lines: String, keyType: String = "rsa2048") -> String {
        valid.replacingOccurrences(of: "      dnsNames: [bank.test]", with: "      dnsNames: [bank.test]\n      keyType: \(keyType)")
            .replacingOccurrences(of: "  leaf: bank-leaf", with: "  leaf: bank-leaf\n" + lines)
    }

    @Test("server.tlsVersion 1.0 and 1.1 each stand alone, and need weak cryptography", arguments: [("1.0", TLSVersion.tls10), ("1.1", .tls11)])
    func oldTLSVersions(name: String, version: TLSVersion) throws {
        let scenario = try load(Self.valid.replacingOccurrences(of: "  leaf: bank-leaf", with: "  leaf: bank-leaf\n  tlsVersion: \"\(name)\""))
        #expect(scenario.server.versions == version...version)
        #expect(scenario.needsWeakCryptography)
    }

    @Test("server.forwardSecrecy false is read for a TLS 1.2 server with an RSA leaf, its own key or one it borrows")
    func noForwardSecrecy() throws {
        let scenario = try load(Self.rsaServer("  tlsVersion: \"1.2\"\n  forwardSecrecy: false"))
        #expect(!scenario.server.forwardSecrecy)
        #expect(!scenario.needsWeakCryptography)
        let borrowed = Self.rsaServer("  tlsVersion: \"1.2\"\n  forwardSecrecy: false")
            .replacingOccurrences(of: "  leaf: bank-leaf\n", with: "  leaf: renewed\n")
            .replacingOccurrences(
                of: "server:", with: "    - id: renewed\n      issuer: bank-root\n      dnsNames: [bank.test]\n      keyOf: bank-leaf\nserver:")
        #expect(try !load(borrowed).server.forwardSecrecy)
    }

    @Test(
        "server.forwardSecrecy false is refused without TLS 1.2 alone or without an RSA leaf",
        arguments: [
            (
                rsaServer("  forwardSecrecy: false"),
                "x.yaml: server.forwardSecrecy: false needs tlsVersion \"1.2\" (every TLS 1.3 suite is forward-secret, and mitmsim offers RSA key exchange "
                    + "with TLS 1.2 only)"
            ),
            (
                rsaServer("  tlsVersion: \"1.3\"\n  forwardSecrecy: false"),
                "x.yaml: server.forwardSecrecy: false needs tlsVersion \"1.2\" (every TLS 1.3 suite is forward-secret, and mitmsim offers RSA key exchange "
                    + "with TLS 1.2 only)"
            ),
            (
                rsaServer("  tlsVersion: \"1.2\"\n  forwardSecrecy: false", keyType: "p256"),
                "x.yaml: server.forwardSecrecy: false needs an RSA server leaf (RSA key exchange encrypts to the leaf's RSA key); 'bank-leaf' has a p256 key"
            ),
        ])
    func forwardSecrecyMisuse(text: String, expected: String) {
        #expect(error(text) == expected)
    }

    @Test("A world with an RSA-1024 key or a SHA-1 signature needs weak cryptography, and is built as written")
    func weakCertificates() throws {
        let weak = Self.valid.replacingOccurrences(
            of: "      dnsNames: [bank.test]", with: "      dnsNames: [bank.test]\n      keyType: rsa1024\n      signatureDigest: sha1")
        let scenario = try load(weak)
        #expect(scenario.world.leaves[0].keyType == .rsa1024)
        #expect(scenario.world.leaves[0].signatureDigest == .sha1)
        #expect(scenario.needsWeakCryptography)
        let world = try World(scenario)
        let leaf = world.server.leaf.certificate
        #expect(leaf.keyDescription == "RSA 1024")
        let trust = ServerTrust(
            certificates: world.server.chain, deviceTrustStore: world.deviceTrustStore, policy: .ssl(host: "bank.test"), verifyDate: scenario.clock,
            platform: .iOS13)
        let failures = trust.evaluate().failures.map(\.kind)
        #expect(failures.contains(.weakSignatureDigest(digest: "SHA-1")), "\(failures)")
        #expect(failures.contains(.weakKey(forTLS: true)), "\(failures)")
        #expect(try !load(Self.valid).needsWeakCryptography)
        let sha1Root = Self.valid.replacingOccurrences(of: "      deviceTrust: system", with: "      deviceTrust: system\n      signatureDigest: sha1")
        #expect(try load(sha1Root).needsWeakCryptography)
        #expect(try load(sha1Root).world.authorities[0].signatureDigest == .sha1)
    }

    @Test("A signature digest other than sha1 or sha256 is refused")
    func anUnknownDigestIsRefused() {
        #expect(
            error(Self.valid.replacingOccurrences(of: "      dnsNames: [bank.test]", with: "      dnsNames: [bank.test]\n      signatureDigest: md5"))
                == "x.yaml: world.leaves[0].signatureDigest: 'md5' is not one of: sha1, sha256")
    }
}
