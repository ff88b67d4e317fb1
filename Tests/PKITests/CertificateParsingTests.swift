import Foundation
import PKI
import Testing

/// Reading certificates from what users hand us: PEM and DER, single and bundled, and every way it breaks.
struct CertificateParsingTests {
    static let world: (root: Identity, leaf: Identity) = {
        let start = date("2026-01-01T00:00:00Z")
        let end = date("2027-01-01T00:00:00Z")
        let root = try! factory.makeIdentity(.authority(label: "Root", commonName: "Root", notBefore: start, notAfter: end))
        let leaf = try! factory.makeIdentity(.serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: end), signedBy: root)
        return (root, leaf)
    }()
    var leaf: Certificate { Self.world.leaf.certificate }
    var root: Certificate { Self.world.root.certificate }

    @Test func aPEMBundleWithTextAroundItReadsInOrderAndLabelsByCommonName() throws {
        let text = "subject=CN=leaf\n".utf8 + (try leaf.pemEncoded()) + "issuer\n".utf8 + (try root.pemEncoded())
        let parsed = try Certificate.parseAll(Array(text), source: "chain.pem")
        #expect(parsed == [leaf, root])
        #expect(parsed.map(\.label) == ["bank.test", "Root"])
    }

    @Test func singleAndConcatenatedDERRead() throws {
        #expect(try Certificate.parseAll(leaf.der, source: "leaf.cer") == [leaf])
        #expect(try Certificate.parseAll(leaf.der + root.der, source: "chain.der") == [leaf, root])
    }

    @Test func writtenFilesReadBackAsPEMOrDERByExtension() throws {
        let directory = TemporaryDirectory()
        try leaf.write(to: directory.file("leaf.cer"))
        try leaf.write(to: directory.file("leaf.pem"))
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("leaf.cer")))) == leaf.der)
        #expect(try Certificate.loadAll(from: directory.file("leaf.pem")) == [leaf])
    }

    @Test(arguments: [
        ("", PKIError.empty(path: "x.pem")),
        (" \n\t\n", PKIError.empty(path: "x.pem")),
        ("hello, I am not a certificate\n", PKIError.malformedCertificate(path: "x.pem", index: 0, detail: "")),
        (
            "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n",
            PKIError.malformedCertificate(path: "x.pem", index: 0, detail: "")
        ),
        ("-----BEGIN CERTIFICATE-----\n!!!! garbage !!!!\n-----END CERTIFICATE-----\n", PKIError.malformedCertificate(path: "x.pem", index: 0, detail: "")),
        ("-----BEGIN CERTIFICATE-----\nMIIB\n", PKIError.malformedCertificate(path: "x.pem", index: 0, detail: "")),
        (
            "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
            PKIError.unexpectedPEMBlock(path: "x.pem", block: "PUBLIC KEY", expected: "a certificate")
        ),
    ])
    func brokenInputIsAnErrorOfTheRightKind(input: String, expected: PKIError) {
        #expect {
            try Certificate.parseAll(Array(input.utf8), source: "x.pem")
        } throws: { error in
            Self.sameKind(error as? PKIError, expected)
        }
    }

    @Test func aPrivateKeyWhereACertificateBelongsIsNamedAsSuch() throws {
        let key = Self.world.leaf.privateKey
        #expect(throws: PKIError.privateKeyInsteadOfCertificate(path: "key.pem")) { try Certificate.parseAll(key.pemEncoded(), source: "key.pem") }
        let der = try Array(
            Data(
                base64Encoded: String(decoding: key.pemEncoded(), as: UTF8.self)
                    .split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined())!)
        #expect(throws: PKIError.privateKeyInsteadOfCertificate(path: "key.der")) { try Certificate.parseAll(der, source: "key.der") }
    }

    @Test func derTruncatedAtEveryByteIsRefusedNeverCrashesAndNeverYieldsACertificate() {
        let der = leaf.der
        for length in 1..<der.count {
            #expect(throws: PKIError.self, "truncated to \(length) bytes") { try Certificate.parseAll(Array(der.prefix(length)), source: "cut.der") }
        }
        #expect(throws: PKIError.self) { try Certificate.parseAll(der + [0x30], source: "padded.der") }
    }

    @Test func errorMessagesAreOneLineAndNameTheFile() {
        let errors: [PKIError] = [
            .empty(path: "a.pem"), .noCertificate(path: "a.pem"), .privateKeyInsteadOfCertificate(path: "a.pem"),
            .malformedCertificate(path: "a.pem", index: 1, detail: "DER is truncated"), .cannotRead(path: "a.pem", reason: "no such file"),
        ]
        for error in errors {
            #expect(error.description.hasPrefix("a.pem: "))
            #expect(!error.description.contains("\n"))
        }
    }

    static func sameKind(_ error: PKIError?, _ expected: PKIError) -> Bool {
        switch (error, expected) {
        case (.malformedCertificate(let path, let index, _)?, .malformedCertificate(let expectedPath, let expectedIndex, _)):
            path == expectedPath && index == expectedIndex
        default:
            error == expected
        }
    }
}
