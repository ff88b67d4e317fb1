import Foundation
import PKI
import Testing

/// `mitmsim audit` as CI runs it: exit 0 when no attack gets through, 1 when one does, 2 on bad input.
final class AuditCommandTests {
    let directory = NSTemporaryDirectory() + "mitmsim-audit-cli-" + UUID().uuidString

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func write(_ text: String, _ name: String) throws -> String {
        try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        return directory + "/" + name
    }

    @Test("An app with NSAllowsArbitraryLoads and allowInvalidCertificates YES exits 1 and lists the attacks that get through")
    func unsafeExitsOne() throws {
        let plist = try write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>NSAppTransportSecurity</key><dict><key>NSAllowsArbitraryLoads</key><true/></dict></dict></plist>
            """, "Info.plist")
        let af = try write("version: afnetworking-2.5.1\nallowInvalidCertificates: true\ndomains: [api.example.com]\n", "af.yaml")
        let result = try CommandLine.run(["audit", "--info-plist", plist, "--afnetworking", af])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("iOS app (afnetworking-2.5.1): 7 attacks GET THROUGH"))
        #expect(result.standardOutput.contains("forgeUntrustedCA  GETS THROUGH"))
        #expect(result.standardOutput.contains("[atsDisablesTrust]"))
        let json = try CommandLine.run(["audit", "--info-plist", plist, "--afnetworking", af, "--format", "json"])
        #expect(json.status == 1)
        #expect(json.json["attackGotThrough"] as? Bool == true)
        let host = try #require((json.json["hosts"] as? [[String: Any]])?.first)
        #expect(Set(host.keys) == ["host", "pattern", "sources", "world", "pins", "clients"])
    }

    @Test("An app that pins the leaf's public key with a backup exits 0")
    func safeExitsZero() throws {
        let factory = CertificateFactory()
        let (start, end) = (Date().addingTimeInterval(-86_400), Date().addingTimeInterval(86_400 * 90))
        let leaf = try factory.makeIdentity(.serverLeaf(label: "api", dnsNames: ["api.example.com"], notBefore: start, notAfter: end))
        let spare = try factory.makeIdentity(.serverLeaf(label: "spare", dnsNames: ["spare.example.com"], notBefore: start, notAfter: end))
        try leaf.certificate.write(to: directory + "/api.cer")
        try spare.certificate.write(to: directory + "/spare.cer")
        let af = try write(
            "version: afnetworking-4\nSSLPinningMode: publicKey\npinnedCertificates: [api.cer, spare.cer]\ndomains: [api.example.com]\n", "af.yaml")
        let result = try CommandLine.run(["audit", "--afnetworking", af])
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(result.standardOutput.hasSuffix("Result: no attack gets through (exit 0).\n"))
    }

    @Test("A malformed input exits 2 with one line naming the file and the line")
    func malformedExitsTwo() throws {
        let pins = try write("api.example.com sha256/short\n", "pins.txt")
        let result = try CommandLine.run(["audit", "--okhttp-pins", pins])
        #expect(result.status == 2)
        #expect(result.standardError == "mitmsim: \(pins): line 1: 'short' is not the base64 of a 32-byte SHA-256 digest\n")
        let nothing = try CommandLine.run(["audit"])
        #expect(nothing.status == 2)
        #expect(nothing.standardError.hasPrefix("mitmsim: give at least one configuration to audit"))
    }
}
