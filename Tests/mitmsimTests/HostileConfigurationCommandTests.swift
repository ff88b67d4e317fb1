import Foundation
import PKI
import TestSupport
import Testing

/// Hostile configuration files handed to `mitmsim audit`, each written here as the issue's one-liners write them: every
/// one is refused in one line naming the file and where in it, with exit status 2 and nothing on standard output,
/// or read as what it says.
struct HostileConfigurationCommandTests {
    /// A directory of files for one test, removed afterwards.
    final class Files {
        let directory = NSTemporaryDirectory() + "mitmsim-hostile-" + UUID().uuidString

        init() throws { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        @discardableResult
        func write(_ bytes: Data, _ name: String) throws -> String {
            try bytes.write(to: URL(fileURLWithPath: directory + "/" + name))
            return directory + "/" + name
        }

        @discardableResult
        func write(_ text: String, _ name: String) throws -> String { try write(Data(text.utf8), name) }
    }

    /// `mitmsim audit` with `arguments`: its one line on standard error, or a description of what else it did.
    static func refusal(_ arguments: [String]) throws -> String {
        let result = try CommandLine.run(["audit"] + arguments)
        guard result.status == 2, result.standardOutput.isEmpty, result.standardError.filter(\.isNewline).count == 1 else {
            return "status \(result.status), output \(result.standardOutput.prefix(300)), error \(result.standardError.prefix(300))"
        }
        return String(result.standardError.dropLast())
    }

    static let pin = Data(repeating: 7, count: 32).base64EncodedString()

    @Test("An Info.plist that hides 10,000 levels of nesting in an attribute value is refused at the line, not a crash")
    func nestingInAnAttributeValue() throws {
        let files = try Files()
        let path = try files.write(#"<plist><dict><key>x</key><array x=">"# + String(repeating: "<array>", count: 10_000) + #""/>"#, "q.plist")
        #expect(
            try Self.refusal(["--info-plist", path])
                == "mitmsim: \(path): line 1, <array>: nests elements more than 64 deep, the most mitmsim reads (an Info.plist needs fewer than 10)")
    }

    @Test("A binary Info.plist nested 40,000 deep where ATS is read costs nothing: the lazy reader stops at the key that holds no mapping")
    func deepBinaryPlist() throws {
        let files = try Files()
        let path = try files.write(Self.nestedBinaryPlist(depth: 40_000), "deep.plist")
        #expect(try Self.refusal(["--info-plist", path]) == "mitmsim: \(path): NSAppTransportSecurity.NSExceptionDomains.x.test: expected a mapping")
    }

    /// `{NSAppTransportSecurity: {NSExceptionDomains: {x.test: [[[…]]]}}}`, the arrays `depth` deep (at most 65,530),
    /// in a binary plist of two-byte references.
    static func nestedBinaryPlist(depth: Int) -> Data {
        let big = BinaryPlist.big
        // Object i < depth: an array holding object i + 1; object depth: an empty array.
        var objects: [[UInt8]] = (0..<depth).map { [0xA1] + big($0 + 1, 2) } + [[0xA0]]
        let first = objects.count
        objects += ["NSAppTransportSecurity", "NSExceptionDomains", "x.test"].map(BinaryPlist.string)
        objects.append([0xD1] + big(first + 2, 2) + big(0, 2))  // {x.test: arrays}
        objects.append([0xD1] + big(first + 1, 2) + big(first + 3, 2))  // {NSExceptionDomains: …}
        objects.append([0xD1] + big(first, 2) + big(first + 4, 2))  // the top level
        return BinaryPlist.file(objects, top: objects.count - 1, offsetSize: 3, referenceSize: 2)
    }

    @Test("A network security config or an Info.plist in UTF-16 that declares entities is refused, and so is XML in an encoding mitmsim does not read")
    func dtdInUTF16() throws {
        let files = try Files()
        let xml =
            #"<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE n [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>"#
            + "<network-security-config><domain-config><domain>&b;.test</domain></domain-config></network-security-config>"
        let bigEndian = try files.write(Data([0xFE, 0xFF]) + xml.data(using: .utf16BigEndian)!, "be.xml")
        let littleEndian = try files.write(xml.data(using: .utf16LittleEndian)!, "le.xml")
        let dtd = "declares a DTD or an entity, which a network security config never needs (mitmsim refuses them: entities are how XML bombs work)"
        #expect(try Self.refusal(["--android-nsc", bigEndian]) == "mitmsim: \(bigEndian): \(dtd)")
        #expect(try Self.refusal(["--android-nsc", littleEndian]) == "mitmsim: \(littleEndian): \(dtd)")
        let plist = try files.write(
            Data([0xFF, 0xFE])
                + (#"<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE plist [<!ENTITY a "aaaa">]><plist><dict><key>&a;</key><true/></dict></plist>"#)
                .data(using: .utf16LittleEndian)!, "Info.plist")
        #expect(
            try Self.refusal(["--info-plist", plist])
                == "mitmsim: \(plist): declares an entity, which an Info.plist never needs (mitmsim refuses them: entities are how XML bombs work)")
        let latin = try files.write(#"<?xml version="1.0" encoding="UTF-7"?><network-security-config/>"#, "utf7.xml")
        #expect(
            try Self.refusal(["--android-nsc", latin])
                == "mitmsim: \(latin): declares encoding 'UTF-7' but is written in UTF-8; mitmsim reads XML written in UTF-8 or UTF-16, declared as such")
    }

    @Test("An IP address where an audited file names a host is refused at its line or key, not in the generated world")
    func ipAddressHosts() throws {
        let files = try Files()
        let nsc = try files.write(
            "<network-security-config>\n<domain-config>\n<domain>::1</domain>\n</domain-config>\n</network-security-config>", "nsc.xml")
        let pins = try files.write("# the app's pins\n::1 sha256/\(Self.pin)\n", "pins.txt")
        let plist = try files.write(
            "<plist><dict><key>NSAppTransportSecurity</key><dict><key>NSExceptionDomains</key><dict><key>::1</key><dict/></dict></dict></dict></plist>",
            "Info.plist")
        let af = try files.write("version: afnetworking-4\ndomains: ['::1']\n", "af.yaml")
        let reason = "'::1' is an IP address; mitmsim audits hosts by name (the certificates it generates for a host name it in DNS)"
        #expect(try Self.refusal(["--android-nsc", nsc]) == "mitmsim: \(nsc): line 3, <domain>: \(reason)")
        #expect(try Self.refusal(["--okhttp-pins", pins]) == "mitmsim: \(pins): line 2: \(reason)")
        #expect(try Self.refusal(["--info-plist", plist]) == "mitmsim: \(plist): NSAppTransportSecurity.NSExceptionDomains.::1: \(reason)")
        #expect(try Self.refusal(["--afnetworking", af]) == "mitmsim: \(af): domains[0]: \(reason)")
    }

    @Test("32 identical pinned files are one pinned certificate of the world; more distinct files than a world holds are refused at the key")
    func manyPinnedFiles() throws {
        let files = try Files()
        let (start, end) = (Date().addingTimeInterval(-86_400), Date().addingTimeInterval(90 * 86_400))
        let factory = CertificateFactory()
        let one = try factory.makeIdentity(.serverLeaf(label: "backup", dnsNames: ["api.example.com"], notBefore: start, notAfter: end))
        for index in 0..<32 { try one.certificate.write(to: files.directory + "/pin\(index).cer") }
        let names = (0..<32).map { "pin\($0).cer" }.joined(separator: ", ")
        let same = try files.write("version: afnetworking-4\nSSLPinningMode: certificate\npinnedCertificates: [\(names)]\n", "same.yaml")
        let result = try CommandLine.run(["audit", "--afnetworking", same])
        #expect(result.status == 0 || result.status == 1, "\(result.standardError)")
        #expect(result.standardOutput.contains("backup-1") && !result.standardOutput.contains("backup-2"), "\(result.standardOutput.prefix(2000))")
        for index in 0..<27 {
            let other = try factory.makeIdentity(.serverLeaf(label: "other\(index)", dnsNames: ["api.example.com"], notBefore: start, notAfter: end))
            try other.certificate.write(to: files.directory + "/other\(index).cer")
        }
        let others = (0..<27).map { "other\($0).cer" }.joined(separator: ", ")
        let many = try files.write("version: afnetworking-4\nSSLPinningMode: certificate\npinnedCertificates: [\(others)]\n", "many.yaml")
        #expect(
            try Self.refusal(["--afnetworking", many])
                == "mitmsim: \(many): pinnedCertificates: holds 27 different certificates, the most is 26 (each may become a certificate of the host's "
                + "generated world, beside a chain of up to 6)")
    }

    @Test("A quoted '*.example.com' in an AFNetworking file is text, refused as a wildcard, not as a YAML alias")
    func quotedAsterisk() throws {
        let files = try Files()
        let af = try files.write("version: afnetworking-4\ndomains: ['*.example.com']\n", "af.yaml")
        #expect(try Self.refusal(["--afnetworking", af]) == "mitmsim: \(af): domains[0]: '*.example.com' is not a host name (no scheme, port or wildcard)")
        let alias = try files.write("version: afnetworking-4\nhosts: &h [a.example.com]\ndomains: *h\n", "alias.yaml")
        #expect(
            try Self.refusal(["--afnetworking", alias])
                == "mitmsim: \(alias): uses a YAML alias (*name); an AFNetworking audit file is read without aliases")
    }

    @Test("A <domain> written as CDATA is the domain it holds")
    func cdataDomain() throws {
        let files = try Files()
        let nsc = try files.write(
            "<network-security-config><domain-config><domain><![CDATA[api.example.com]]></domain></domain-config></network-security-config>", "nsc.xml")
        let result = try CommandLine.run(["audit", "--android-nsc", nsc])
        #expect(result.status == 0 || result.status == 1, "\(result.standardError)")
        #expect(result.standardOutput.contains("api.example.com, named by domain-config"), "\(result.standardOutput.prefix(500))")
    }

    @Test("An audit bigger than its limit on real runs (hosts × clients × attacks) is refused before it generates anything")
    func tooMuchWork() throws {
        let files = try Files()
        let names = (1...16).map { "api\($0).example.com" }
        let nsc = try files.write(
            "<network-security-config>" + names.map { "<domain-config><domain>\($0)</domain></domain-config>" }.joined() + "</network-security-config>",
            "nsc.xml")
        let pins = try files.write(names.map { "\($0) sha256/\(Self.pin)\n" }.joined(), "pins.txt")
        #expect(
            try Self.refusal(["--android-nsc", nsc, "--okhttp-pins", pins])
                == "mitmsim: the configurations name 16 hosts for 2 clients to judge: 320 real runs (10 attacks each), the most one audit makes is 144; "
                + "audit fewer configuration files or hosts at once")
    }

    @Test("A --chain of RSA-2048 keys shapes a world of P-256 keys, which every client judges alike, and the report says so")
    func largeRSAKeysAreNotMade() throws {
        let files = try Files()
        let (start, end) = (Date().addingTimeInterval(-86_400), Date().addingTimeInterval(90 * 86_400))
        let factory = CertificateFactory()
        let issuer = try factory.makeIdentity(
            .authority(label: "issuer", commonName: "Example Issuing CA", notBefore: start, notAfter: end), keyType: .rsa2048)
        let leaf = try factory.makeIdentity(
            .serverLeaf(label: "leaf", dnsNames: ["api.example.com"], notBefore: start, notAfter: end), keyType: .rsa2048, signedBy: issuer)
        let chain = files.directory + "/chain.pem"
        try Certificate.writeBundle([leaf.certificate, issuer.certificate], to: chain)
        let nsc = try files.write("<network-security-config><domain-config><domain>api.example.com</domain></domain-config></network-security-config>", "n.xml")
        let result = try CommandLine.run(["audit", "--android-nsc", nsc, "--chain", chain])
        #expect(result.status == 0 || result.status == 1, "\(result.standardError)")
        #expect(
            result.standardOutput.contains(
                "leaf has a P-256 key where the real one is RSA 2048 (every client mitmsim models judges an RSA key of 2048 bits or more as it "
                    + "judges a P-256 key, and a large RSA key takes up to a second to make)"), "\(result.standardOutput.prefix(1500))")
    }

    @Test("A network security config with two root elements is refused at the second")
    func twoRoots() throws {
        let files = try Files()
        let nsc = try files.write("<network-security-config/>\n<network-security-config/>\n", "nsc.xml")
        #expect(
            try Self.refusal(["--android-nsc", nsc])
                == "mitmsim: \(nsc): line 2: is not well-formed XML (more follows the root element; an XML file has one root element)")
    }

    @Test("A <certificateTransparency> whose enabled is not true or false is refused at its line, and a good one is audited")
    func certificateTransparencyValue() throws {
        let files = try Files()
        let bad = try files.write(
            "<network-security-config>\n<base-config>\n<certificateTransparency enabled=\"yes\"/>\n</base-config>\n</network-security-config>\n", "bad.xml")
        #expect(try Self.refusal(["--android-nsc", bad]) == "mitmsim: \(bad): line 3, <certificateTransparency>: enabled 'yes' is neither true nor false")
        let good = try files.write(
            "<network-security-config>\n<domain-config><domain>bank.test</domain><certificateTransparency enabled=\"true\"/></domain-config>\n"
                + "</network-security-config>\n", "good.xml")
        let result = try CommandLine.run(["audit", "--android-nsc", good, "--target-sdk", "34"])
        let misissued = result.standardOutput.split(separator: "\n").first { $0.contains(" misissued ") }.map {
            $0.split(separator: " ").joined(separator: " ")
        }
        #expect(misissued == "misissued stopped REJECTED at androidCertificateTransparency", "\(result.standardOutput.prefix(1500)) \(result.standardError)")
    }
}
