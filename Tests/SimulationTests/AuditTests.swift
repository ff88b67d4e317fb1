import Foundation
import PKI
import Policies
import Testing

@testable import Simulation

/// Audits of whole configurations, every attack a real run on 127.0.0.1.
struct AuditTests {
    @Test("NSAllowsArbitraryLoads and allowInvalidCertificates YES let every forgery through, decided at allowInvalidOverride")
    func anUnsafeAppLetsAttacksThrough() throws {
        let files = try AuditFiles()
        let plist = try files.plist("<key>NSAppTransportSecurity</key><dict><key>NSAllowsArbitraryLoads</key><true/></dict>")
        let af = try files.write(
            "version: afnetworking-4\nallowInvalidCertificates: true\nvalidatesDomainName: false\ndomains: [api.example.com]\n", to: "af.yaml")
        let audit = try Audit(AuditConfiguration.read(infoPlist: plist, afnetworking: af))
        #expect(audit.attackGotThrough)
        let verdicts = try #require(audit.hosts.first?.clients.first)
        #expect(verdicts.client == "iOS app (afnetworking-4)")
        let through = verdicts.attacks.filter(\.getsThrough)
        #expect(through.map(\.column) == [.forgeUntrustedCA, .forgeInstalledCA, .selfSigned, .wrongHost, .expired, .misissued, .misissuedLogged])
        #expect(through.allSatisfy { $0.decidingCheck == .allowInvalidOverride })
        #expect(audit.warnings.map(\.kind) == [.atsDisablesTrust, .allowInvalidCertificates, .validatesDomainNameOff])
        #expect(audit.text.contains("forgeUntrustedCA  GETS THROUGH ACCEPTED at allowInvalidOverride"))
    }

    @Test("Public-key pinning of the leaf with a backup pin stops every counted attack, and the real server is trusted")
    func aPinnedAppStopsEveryAttack() throws {
        let files = try AuditFiles()
        let factory = CertificateFactory()
        let spare = try factory.makeIdentity(
            .serverLeaf(
                label: "spare", dnsNames: ["spare.example.com"], notBefore: Date().addingTimeInterval(-86_400), notAfter: Date().addingTimeInterval(86_400)))
        try spare.certificate.write(to: files.path("spare.cer"))
        let af = try files.write(
            "version: afnetworking-4\nSSLPinningMode: publicKey\npinnedCertificates: [api.cer, spare.cer]\ndomains: [api.example.com]\n", to: "af.yaml")
        let audit = try Audit(AuditConfiguration.read(afnetworking: af))
        let report = try #require(audit.hosts.first)
        #expect(report.pins.map(\.worldID) == ["leaf", "backup-1"])
        let attacks = try #require(report.clients.first?.attacks)
        #expect(attacks.first { $0.column == .none }?.trusted == true)
        #expect(attacks.first { $0.column == .forgeInstalledCA }?.decidingCheck == .pinnedPublicKeyMatch)
        #expect(attacks.first { $0.column == .misissued }?.trusted == false)
        #expect(attacks.first { $0.column == .misissuedLogged }?.trusted == false)
        #expect(!audit.attackGotThrough)
        #expect(audit.warnings.isEmpty)
    }

    @Test("The same public-key pin in an app built with AFNetworking 3.0.x lets a forgery the phone trusts through")
    func aPinnedAppOnAFNetworking3_0LetsTheInstalledCAForgeryThrough() throws {
        let files = try AuditFiles()
        let af = try files.write(
            "version: afnetworking-3.0\nSSLPinningMode: publicKey\npinnedCertificates: [api.cer]\ndomains: [api.example.com]\n", to: "af.yaml")
        let audit = try Audit(AuditConfiguration.read(afnetworking: af))
        let verdicts = try #require(audit.hosts.first?.clients.first)
        #expect(verdicts.client == "iOS app (afnetworking-3.0)")
        let installed = try #require(verdicts.attacks.first { $0.column == .forgeInstalledCA })
        #expect(installed.getsThrough && installed.decidingCheck == .systemTrust)
        #expect(verdicts.attacks.first { $0.column == .forgeUntrustedCA }?.getsThrough == false)
        #expect(audit.attackGotThrough)
    }

    @Test("With --chain, a pin on the real intermediate pins the generated one, and a pin that matches nothing is said")
    func chainPlacesPinsByRole() throws {
        let files = try AuditFiles()
        try files.intermediate.certificate.write(to: files.path("issuing.cer"))
        let af = try files.write(
            "version: afnetworking-4\nSSLPinningMode: certificate\npinnedCertificates: [issuing.cer, backup.cer]\ndomains: [api.example.com]\n",
            to: "af.yaml")
        let configuration = try AuditConfiguration.read(afnetworking: af, chains: [files.path("chain.pem")])
        let audit = try Audit(configuration)
        let report = try #require(audit.hosts.first)
        #expect(report.pins.map(\.worldID) == ["intermediate-1", "backup-1"])
        #expect(report.shape.first?.hasPrefix("shaped like") == true)
        #expect(audit.warnings.map(\.kind) == [.pinMatchesNothing])
        // Pinning the CA: a certificate the pinned intermediate mis-issues is still not what the matrix's public CA issues.
        let attacks = try #require(report.clients.first?.attacks)
        #expect(attacks.first { $0.column == .none }?.trusted == true)
        #expect(attacks.first { $0.column == .forgeInstalledCA }?.trusted == false)
    }

    @Test("A lone pin has no backup; a pin list of two has one")
    func backupPins() throws {
        let lone = AuditPin(source: "a", hash: AuditFiles.otherPin, group: "OkHttp api.example.com", certificate: nil)
        #expect(Audit.pinWarnings([lone], host: "api.example.com", chainGiven: false).map(\.kind) == [.noBackupPin])
        #expect(Audit.pinWarnings([lone, lone], host: "api.example.com", chainGiven: false).isEmpty)
    }

    @Test("OkHttp pinning the leaf's key, with a backup pin, stops every forgery")
    func okHttpPins() throws {
        let files = try AuditFiles()
        let pinned = try files.write(
            "api.example.com sha256/\(files.leaf.certificate.publicKeySHA256Base64)\napi.example.com sha256/\(AuditFiles.otherPin)\n", to: "pins.txt")
        let chain = files.path("chain.pem")
        let safe = try Audit(AuditConfiguration.read(okHttpPins: pinned, chains: [chain]))
        let attacks = try #require(safe.hosts.first?.clients.first?.attacks)
        #expect(safe.hosts.first?.clients.first?.client.hasPrefix("OkHttp CertificatePinner") == true)
        #expect(attacks.first { $0.column == .forgeInstalledCA }?.trusted == false)
        #expect(!safe.attackGotThrough)
    }

    @Test("TrustKit in report-only mode lets a forgery from a user-installed CA through, and the audit says so")
    func trustKitReportOnly() throws {
        let files = try AuditFiles()
        let path = try files.plist(
            """
            <key>TSKConfiguration</key><dict><key>TSKPinnedDomains</key><dict><key>api.example.com</key><dict>
              <key>TSKPublicKeyHashes</key><array><string>\(files.leaf.certificate.publicKeySHA256Base64)</string><string>\(AuditFiles.otherPin)</string></array>
              <key>TSKEnforcePinning</key><false/>
            </dict></dict></dict>
            """)
        let audit = try Audit(AuditConfiguration.read(infoPlist: path, chains: [files.path("chain.pem")]))
        #expect(audit.hosts.first?.clients.count == 1, "TrustKit answers that app's challenges: no second iOS row")
        let trustKit = try #require(audit.hosts.first?.clients.first { $0.client.hasPrefix("TrustKit") })
        #expect(trustKit.attacks.first { $0.column == .forgeInstalledCA }?.getsThrough == true)
        #expect(trustKit.attacks.first { $0.column == .forgeUntrustedCA }?.trusted == false)
        #expect(audit.warnings.map(\.kind).contains(.reportOnly))
        #expect(audit.attackGotThrough)
    }

    @Test("The same Info.plist's NSPinnedDomains stops the installed CA's forgery that report-only TrustKit would let through")
    func infoPlistPinsHoldUnderReportOnlyTrustKit() throws {
        let files = try AuditFiles()
        let leafPin = files.leaf.certificate.publicKeySHA256Base64
        let path = try files.plist(
            """
            <key>TSKConfiguration</key><dict><key>TSKPinnedDomains</key><dict><key>api.example.com</key><dict>
              <key>TSKPublicKeyHashes</key><array><string>\(leafPin)</string><string>\(AuditFiles.otherPin)</string></array>
              <key>TSKEnforcePinning</key><false/>
            </dict></dict></dict>
            <key>NSAppTransportSecurity</key><dict><key>NSPinnedDomains</key><dict><key>api.example.com</key><dict>
              <key>NSPinnedLeafIdentities</key><array>
                <dict><key>SPKI-SHA256-BASE64</key><string>\(leafPin)</string></dict>
                <dict><key>SPKI-SHA256-BASE64</key><string>\(AuditFiles.otherPin)</string></dict>
              </array>
            </dict></dict></dict>
            """)
        let audit = try Audit(AuditConfiguration.read(infoPlist: path, chains: [files.path("chain.pem")]))
        let trustKit = try #require(audit.hosts.first?.clients.first { $0.client.hasPrefix("TrustKit") })
        #expect(trustKit.attacks.first { $0.column == .none }?.trusted == true)
        #expect(trustKit.attacks.first { $0.column == .forgeInstalledCA }?.trusted == false)
    }
}
