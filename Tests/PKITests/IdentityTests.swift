import Foundation
import PKI
import Testing

struct IdentityTests {
    let start = date("2026-01-01T00:00:00Z"), end = date("2027-01-01T00:00:00Z")

    func clientIdentity() throws -> Identity {
        var spec = CertificateSpec.serverLeaf(label: "client", dnsNames: [], notBefore: start, notAfter: end)
        spec.subject = DistinguishedName(commonName: "Mobile App Client")
        spec.extendedKeyUsage = [.clientAuth]
        return try factory.makeIdentity(spec)
    }

    @Test func aPKCS12FileOpensWithItsPasswordAsTheSameIdentityAndOpenSSLReadsItToo() throws {
        let identity = try clientIdentity()
        let directory = TemporaryDirectory()
        try identity.writePKCS12(to: directory.file("client.p12"), password: "123456")

        let attributes = try FileManager.default.attributesOfItem(atPath: directory.file("client.p12"))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let loaded = try Identity.load(pkcs12Path: directory.file("client.p12"), password: "123456")
        #expect(loaded.certificate == identity.certificate)
        #expect(try loaded.privateKey.publicKeyInfo() == identity.privateKey.publicKeyInfo())
        let subject = try shell("openssl pkcs12 -in \(directory.file("client.p12")) -passin pass:123456 -nokeys | openssl x509 -noout -subject")
        #expect(subject == "subject=CN = Mobile App Client")
    }

    @Test func theWrongPasswordIsItsOwnErrorNamingTheFileWhileADamagedFileIsABadPKCS12() throws {
        let bytes = try clientIdentity().pkcs12(password: "right")
        #expect(throws: PKIError.wrongPKCS12Password(path: "client.p12")) { try Identity(pkcs12: bytes, password: "wrong", source: "client.p12") }
        #expect(
            PKIError.wrongPKCS12Password(path: "client.p12").description
                == "client.p12: the password does not open this PKCS#12 file (its MAC does not verify with it)")
        #expect {
            try Identity(pkcs12: Array(bytes.prefix(bytes.count / 2)), password: "right", source: "client.p12")
        } throws: { error in
            (error as? PKIError)?.description.hasPrefix("client.p12: not a PKCS#12 identity that this password opens") == true
        }
    }

    @Test func anImpostorKeyClaimsTheRealPublicKeyButItsSignaturesDoNotVerify() throws {
        let root = try factory.makeIdentity(.authority(label: "Root", commonName: "Root", notBefore: start, notAfter: end))
        let impostor = try PrivateKey.impostor(claiming: root.certificate)
        #expect(try impostor.publicKeyInfo() == root.certificate.publicKeyInfo)

        let spec = CertificateSpec.serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: end)
        let key = try PrivateKey.generate()
        let genuine = try factory.issue(spec, key: key, signedBy: root)
        let counterfeit = try factory.issue(spec, key: key, signedBy: Identity(certificate: root.certificate, privateKey: impostor))
        #expect(genuine.isSigned(by: root.certificate))
        #expect(!counterfeit.isSigned(by: root.certificate))
    }

    @Test func anImpostorKeyIsOnlyMadeForECCertificates() throws {
        let rsa = try factory.makeIdentity(.authority(label: "RSA Root", commonName: "RSA Root", notBefore: start, notAfter: end), keyType: .rsa2048)
        #expect(throws: PKIError.unsupportedKey(operation: "an impostor key", key: "RSA 2048")) { try PrivateKey.impostor(claiming: rsa.certificate) }
    }

    @Test func aSelfSignedForgeryCarriesTheRealNamesAndSignsItself() throws {
        let real = try factory.makeIdentity(.serverLeaf(label: "bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: end)).certificate
        let forged = try factory.forge(impersonating: real, signedBy: nil).certificate
        #expect(forged.label == "self-signed bank.test")
        #expect(forged.dnsNames == ["bank.test"])
        #expect(forged.isSelfIssued && forged.isSigned(by: forged))
    }
}
