import Foundation
import PKI
import Policies
import Testing

@testable import Simulation

/// Files as developers have them, in a temporary directory, with a real chain to pin.
final class AuditFiles {
    let directory = NSTemporaryDirectory() + "mitmsim-audit-" + UUID().uuidString
    let root: Identity, intermediate: Identity, leaf: Identity, backup: Identity

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let factory = CertificateFactory()
        let (start, end) = (Date().addingTimeInterval(-30 * 86_400), Date().addingTimeInterval(365 * 86_400))
        root = try factory.makeIdentity(.authority(label: "Example Root", commonName: "Example Root", notBefore: start, notAfter: end))
        intermediate = try factory.makeIdentity(
            .authority(label: "Example Issuing CA", commonName: "Example Issuing CA", pathLength: 0, notBefore: start, notAfter: end), signedBy: root)
        leaf = try factory.makeIdentity(
            .serverLeaf(label: "api.example.com", dnsNames: ["api.example.com"], notBefore: start, notAfter: end), signedBy: intermediate)
        backup = try factory.makeIdentity(.serverLeaf(label: "backup", dnsNames: ["api.example.com"], notBefore: start, notAfter: end))
        try leaf.certificate.write(to: path("api.cer"))
        try backup.certificate.write(to: path("backup.cer"))
        try Certificate.writeBundle([leaf.certificate, intermediate.certificate], to: path("chain.pem"))
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func path(_ name: String) -> String { directory + "/" + name }

    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    /// An XML Info.plist holding `body` inside its top-level dictionary.
    func plist(_ body: String) throws -> String {
        try write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>com.example.bank</string>
            \(body)
            </dict></plist>
            """, to: "Info.plist")
    }

    static let otherPin = Data(repeating: 7, count: 32).base64EncodedString()
}

/// Every audit input read from a real-looking file, and each malformed one refused in one line naming the file and the key or line.
struct AuditInputTests {
    @Test("A TrustKit subdomain excluded from its parent's policy is read, and the audit finds no pins for it")
    func trustKitExcludedSubdomain() throws {
        let files = try AuditFiles()
        let path = try files.plist(
            """
            <key>TSKConfiguration</key><dict><key>TSKPinnedDomains</key><dict>
              <key>example.com</key><dict><key>TSKIncludeSubdomains</key><true/>
                <key>TSKPublicKeyHashes</key><array><string>\(files.leaf.certificate.publicKeySHA256Base64)</string><string>\(AuditFiles.otherPin)</string></array></dict>
              <key>www.example.com</key><dict><key>TSKExcludeSubdomainFromParentPolicy</key><true/></dict>
            </dict></dict>
            """)
        let configuration = try AuditConfiguration.read(infoPlist: path)
        #expect(configuration.infoPlist?.value.trustKit?.pinnedDomains["www.example.com"] == .excludedFromParentPolicy)
        #expect(configuration.pins(for: "www.example.com").isEmpty)
        #expect(configuration.pins(for: "api.example.com").count == 2)
    }

    @Test("An Info.plist gives ATS, TrustKit's pinned domains as written, and the ATS keys mitmsim does not model, without refusing them")
    func infoPlistWithTrustKit() throws {
        let files = try AuditFiles()
        let pin = files.leaf.certificate.publicKeySHA256Base64
        let path = try files.plist(
            """
            <key>NSAppTransportSecurity</key><dict>
              <key>NSAllowsLocalNetworking</key><true/>
              <key>NSExceptionDomains</key><dict><key>api.example.com</key><dict>
                <key>NSExceptionAllowsInsecureHTTPLoads</key><true/><key>NSRequiresCertificateTransparency</key><true/></dict></dict>
            </dict>
            <key>TSKConfiguration</key><dict>
              <key>TSKSwizzleNetworkDelegates</key><false/>
              <key>TSKPinnedDomains</key><dict><key>example.com</key><dict>
                <key>TSKPublicKeyHashes</key><array><string>\(pin)</string><string>\(AuditFiles.otherPin)</string></array>
                <key>TSKIncludeSubdomains</key><true/>
                <key>TSKEnforcePinning</key><false/>
                <key>TSKExpirationDate</key><string>2020-01-01</string>
              </dict></dict>
            </dict>
            """)
        let configuration = try AuditConfiguration.read(infoPlist: path)
        let settings = try #require(configuration.infoPlist?.value)
        #expect(settings.ats.exceptionDomains["api.example.com"]?.allowsInsecureHTTPLoads == true)
        #expect(
            settings.unmodelledKeys == [
                "NSAppTransportSecurity.NSAllowsLocalNetworking", "NSAppTransportSecurity.NSExceptionDomains.api.example.com.NSRequiresCertificateTransparency",
            ])
        let domain = try #require(settings.trustKit?.pinnedDomains["example.com"])
        #expect(
            domain
                == TrustKitDomainPolicy(
                    publicKeyHashes: [pin, AuditFiles.otherPin], includeSubdomains: true, enforcePinning: false, expirationDate: "2020-01-01"))
        #expect(configuration.pins(for: "api.example.com").map(\.hash) == [pin, AuditFiles.otherPin])
        let kinds = configuration.warnings(at: Date()).map(\.kind)
        #expect(kinds == [.unmodelledKey, .unmodelledKey, .atsDisablesTrust, .reportOnly, .expiredPins])
    }

    @Test("A lesson's Info.plist still refuses the ATS keys mitmsim does not model")
    func lessonsStillRefuseUnmodelledKeys() throws {
        let files = try AuditFiles()
        let path = try files.plist("<key>NSAppTransportSecurity</key><dict><key>NSAllowsLocalNetworking</key><true/></dict>")
        #expect(throws: InfoPlist.Refusal.self) { try InfoPlist.appTransportSecurity(at: path) }
    }

    @Test("A network security config gives its base, domain configurations, pin-set, trust anchors and debug overrides as written")
    func networkSecurityConfig() throws {
        let files = try AuditFiles()
        let path = try files.write(
            """
            <?xml version="1.0" encoding="utf-8"?>
            <network-security-config>
                <base-config cleartextTrafficPermitted="false">
                    <trust-anchors><certificates src="system" /></trust-anchors>
                </base-config>
                <domain-config>
                    <domain includeSubdomains="true">example.com</domain>
                    <trust-anchors>
                        <certificates src="system" />
                        <certificates src="user" overridePins="true" />
                    </trust-anchors>
                    <pin-set expiration="2018-01-01">
                        <pin digest="SHA-256">\(files.leaf.certificate.publicKeySHA256Base64)</pin>
                        <pin digest="SHA-256">\(AuditFiles.otherPin)</pin>
                    </pin-set>
                    <domain-config><domain>legacy.example.com</domain></domain-config>
                </domain-config>
                <debug-overrides><trust-anchors><certificates src="user" /></trust-anchors></debug-overrides>
            </network-security-config>
            """, to: "network_security_config.xml")
        let configuration = try AuditConfiguration.read(androidNSC: path, targetSDK: 23)
        let config = try #require(configuration.networkSecurityConfig?.value)
        #expect(config.baseConfig?.cleartextTrafficPermitted == false)
        #expect(config.baseConfig?.trustAnchors == [.init(.system)])
        #expect(config.allDomainConfigs.map { $0.domains.map(\.name) } == [["example.com"], ["legacy.example.com"]])
        #expect(config.domainConfigs[0].trustAnchors?.last == .init(.user, overridePins: true))
        #expect(config.domainConfigs[0].pinSet?.pins.count == 2)
        #expect(config.debugOverrides == [.init(.user)])
        // A nested configuration inherits its parent's pin-set.
        #expect(config.pinSet(covering: "legacy.example.com")?.1.pins.count == 2)
        #expect(try configuration.hosts().map(\.name) == ["example.com", "legacy.example.com"])
        #expect(configuration.warnings(at: Date()).map(\.kind) == [.overridePinsOnUserAnchors, .expiredPins])
    }

    @Test("OkHttp pin lines give patterns and hashes; a wildcard pattern gets a representative host")
    func okHttpPins() throws {
        let files = try AuditFiles()
        let pin = files.leaf.certificate.publicKeySHA256Base64
        let path = try files.write(
            """
            # CertificatePinner.Builder()
            api.example.com    sha256/\(pin)

            *.example.com      sha256/\(AuditFiles.otherPin)   # backup
            **.cdn.example.net sha256/\(pin)
            """, to: "pins.txt")
        let pins = try #require(try AuditConfiguration.read(okHttpPins: path).okHttpPins?.value)
        #expect(pins.map(\.pin.pattern) == ["api.example.com", "*.example.com", "**.cdn.example.net"])
        #expect(pins.map(\.line) == [2, 4, 5])
        let configuration = try AuditConfiguration.read(okHttpPins: path)
        #expect(
            try configuration.hosts().map { [$0.name, $0.pattern ?? "-"] } == [
                ["api.example.com", "-"], ["www.example.com", "*.example.com"], ["www.cdn.example.net", "**.cdn.example.net"],
            ])
        // `*.` covers one label, so api.example.com has both pins; `**.` covers the domain too.
        #expect(configuration.pins(for: "api.example.com").count == 2)
        #expect(
            pins[2].pin.matchesHostname("cdn.example.net") && pins[2].pin.matchesHostname("a.b.cdn.example.net")
                && !pins[1].pin.matchesHostname("a.b.example.com"))
    }

    @Test("A wildcard over a single label (*.test), which OkHttp's CertificatePinner takes, is read and audited at www.test")
    func okHttpSingleLabelWildcard() throws {
        let files = try AuditFiles()
        let path = try files.write("*.test sha256/\(files.leaf.certificate.publicKeySHA256Base64)\n*.test sha256/\(AuditFiles.otherPin)\n", to: "pins.txt")
        let configuration = try AuditConfiguration.read(okHttpPins: path)
        #expect(try configuration.hosts().map { [$0.name, $0.pattern ?? "-"] } == [["www.test", "*.test"]])
        #expect(configuration.pins(for: "www.test").count == 2)
        let audit = try Audit(configuration)
        #expect(audit.hosts.map(\.host.name) == ["www.test"])
    }

    @Test("An AFNetworking file gives the release, the policy and the pinned certificates read relative to it")
    func afnetworkingFile() throws {
        let files = try AuditFiles()
        let path = try files.write(
            """
            version: afnetworking-2.5.1
            SSLPinningMode: publicKey
            allowInvalidCertificates: false
            validatesDomainName: true
            validatesCertificateChain: false
            pinnedCertificates: [api.cer, backup.cer]
            challengeHandler: afnetworking
            domains: [API.example.com]
            """, to: "af.yaml")
        let af = try AFNetworkingAuditFile.read(path)
        #expect(af.version == .v2_5_1 && af.pinningMode == .publicKey && !af.validatesCertificateChain)
        #expect(af.pinnedCertificates == [files.leaf.certificate, files.backup.certificate])
        #expect(af.domains == ["api.example.com"])
    }

    @Test("A pinned .cer that holds PEM text is refused: the app's SecCertificateCreateWithData would read no certificate from it")
    func pemRenamedCer() throws {
        let files = try AuditFiles()
        try files.write(String(decoding: try files.leaf.certificate.pemEncoded(), as: UTF8.self), to: "api-renamed.cer")
        let path = try files.write("version: afnetworking-4\nSSLPinningMode: certificate\npinnedCertificates: [api-renamed.cer]\n", to: "af.yaml")
        let error = try #require(throws: ScenarioError.self) { try AFNetworkingAuditFile.read(path) }
        #expect(
            "\(error)".hasPrefix(
                "\(path): pinnedCertificates[0]: \(files.path("api-renamed.cer")): holds PEM text, and a pinned certificate an app bundles as .cer is "
                    + "read as DER"), "\(error)")
    }

    @Test(
        "A malformed input is one line naming the file and the key or line",
        arguments: [
            ("af.yaml", "version: afnetworking-4\nSSLPinningMode: pubkey\n", "af.yaml: SSLPinningMode: 'pubkey' is not one of: certificate, none, publicKey"),
            ("af.yaml", "version: afnetworking-4\npinning: none\n", "af.yaml: pinning: unknown key (expected one of: SSLPinningMode,"),
            (
                "af.yaml", "version: afnetworking-2.6\nvalidatesCertificateChain: false\n",
                "af.yaml: validatesCertificateChain: afnetworking-2.6 has no validatesCertificateChain"
            ),
            ("af.yaml", "version: afnetworking-4\npinnedCertificates: [missing.cer]\n", "af.yaml: pinnedCertificates[0]:"),
            ("af.yaml", "a: &x [1]\nb: *x\n", "af.yaml: uses a YAML alias"),
            ("pins.txt", "api.example.com sha1/AAAA\n", "pins.txt: line 1: 'sha1/AAAA' is not a sha256/ pin"),
            ("pins.txt", "\n\napi.example.com sha256/AAAA\n", "pins.txt: line 3: 'AAAA' is not the base64 of a 32-byte SHA-256 digest"),
            ("pins.txt", "https://api.example.com sha256/\(AuditFiles.otherPin)\n", "pins.txt: line 1: 'https://api.example.com' is not a host pattern"),
            (
                "nsc.xml",
                "<network-security-config><domain-config><domain>a.com</domain><pin-set><pin digest=\"SHA-1\">x</pin></pin-set></domain-config></network-security-config>",
                "nsc.xml: line 1, <pin>: digest must be \"SHA-256\""
            ),
            (
                "nsc.xml", "<network-security-config>\n<domain-config>\n<domain>a.com</domain>\n<trust-anchor/></domain-config></network-security-config>",
                "nsc.xml: line 4, <trust-anchor>: is not allowed inside <domain-config>"
            ),
            ("nsc.xml", "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"b\">]><network-security-config/>", "nsc.xml: declares a DTD or an entity"),
            ("nsc.xml", "<network-security-config>\n<base-config>", "nsc.xml: line 2: is not well-formed XML"),
            (
                "Info.plist",
                "<plist><dict><key>TSKConfiguration</key><dict><key>TSKPinnedDomains</key><dict><key>a.com</key><dict><key>TSKPublicKeyHashes</key><array><string>abc</string></array></dict></dict></dict></dict></plist>",
                "Info.plist: TSKConfiguration.TSKPinnedDomains.a.com.TSKPublicKeyHashes[0]: 'abc' is not the base64"
            ),
        ])
    func malformedInputs(file: String, content: String, message: String) throws {
        let files = try AuditFiles()
        let path = try files.write(content, to: file)
        do {
            _ = try AuditConfiguration.read(
                infoPlist: file == "Info.plist" ? path : nil, androidNSC: file == "nsc.xml" ? path : nil, okHttpPins: file == "pins.txt" ? path : nil,
                afnetworking: file == "af.yaml" ? path : nil)
            Issue.record("\(file) was read")
        } catch {
            let line = "\(error)"
            #expect(line.hasPrefix(files.path(message)) || line.hasPrefix(files.directory + "/" + message), "\(line)")
            #expect(!line.contains("\n"))
        }
    }
}
