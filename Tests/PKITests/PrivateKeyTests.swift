import Foundation
import PKI
import Testing

struct PrivateKeyTests {
    @Test(arguments: [(KeyType.p256, "EC P-256"), (.rsa2048, "RSA 2048"), (.rsa3072, "RSA 3072")])
    func generatedKeysHaveTheRequestedTypeAndSize(type: KeyType, description: String) throws {
        #expect(try PrivateKey.generate(type).keyDescription == description)
    }

    @Test func twoGeneratedKeysDiffer() throws {
        #expect(try PrivateKey.generate().publicKeyInfo() != PrivateKey.generate().publicKeyInfo())
    }

    @Test func aKeyIsWrittenAsPKCS8PEMReadableOnlyByItsOwnerAndReadsBackTheSame() throws {
        let directory = TemporaryDirectory()
        let key = try PrivateKey.generate()
        try key.write(to: directory.file("server.key"))

        let attributes = try FileManager.default.attributesOfItem(atPath: directory.file("server.key"))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let text = try String(contentsOfFile: directory.file("server.key"), encoding: .utf8)
        #expect(text.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(try PrivateKey.load(from: directory.file("server.key")).publicKeyInfo() == key.publicKeyInfo())
        #expect(try openssl(["pkey", "-in", directory.file("server.key"), "-noout"]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["server.key"])
    }

    @Test func aCertificateIsNotAPrivateKey() throws {
        let certificate = try factory.makeIdentity(.authority(label: "Root", commonName: "Root", notBefore: clock, notAfter: clock + 86_400)).certificate
        #expect(throws: PKIError.self) { try PrivateKey(pem: certificate.pemEncoded(), source: "root.pem") }
    }
}
