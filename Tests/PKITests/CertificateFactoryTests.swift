import Foundation
import PKI
import Testing

struct CertificateFactoryTests {
    let start = date("2026-01-01T00:00:00Z"), end = date("2027-01-01T00:00:00Z")

    func chain() throws -> (root: Identity, intermediate: Identity, leaf: Identity) {
        let root = try factory.makeIdentity(
            .authority(label: "Bank Root", commonName: "Bank Root", organization: "Example Bank", notBefore: start, notAfter: end))
        let intermediate = try factory.makeIdentity(
            .authority(label: "Bank Intermediate", commonName: "Bank Intermediate", pathLength: 0, notBefore: start, notAfter: end), signedBy: root)
        var spec = CertificateSpec.serverLeaf(
            label: "bank-leaf", organization: "Example Bank", dnsNames: ["bank.test", "*.bank.test"], ipAddresses: ["127.0.0.1", "::1"],
            notBefore: start, notAfter: end)
        spec.serialNumber = 0x1234_5678
        spec.subject = DistinguishedName(commonName: "bank.test", organization: "Example Bank", organizationalUnit: "Online")
        let leaf = try factory.makeIdentity(spec, signedBy: intermediate)
        return (root, intermediate, leaf)
    }

    @Test func aLeafCarriesEveryFieldOfItsSpecAsOurParserReadsIt() throws {
        let leaf = try chain().leaf.certificate
        #expect(leaf.label == "bank-leaf")
        #expect(leaf.subject.description == "CN=bank.test, OU=Online, O=Example Bank")
        #expect(leaf.issuer.commonName == "Bank Intermediate")
        #expect(leaf.dnsNames == ["bank.test", "*.bank.test"])
        #expect(leaf.ipAddresses == ["127.0.0.1", "::1"])
        #expect(leaf.notBefore == start)
        #expect(leaf.notAfter == end)
        #expect(!leaf.isAuthority)
        #expect(leaf.keyDescription == "EC P-256")
    }

    @Test func aChainIsEncodedAsOpenSSLExpectsAndVerifiesWithTheOpenSSLTool() throws {
        let (root, intermediate, leaf) = try chain()
        let directory = TemporaryDirectory()
        try root.certificate.write(to: directory.file("root.pem"))
        try intermediate.certificate.write(to: directory.file("intermediate.cer"))
        try leaf.certificate.write(to: directory.file("leaf.pem"))

        let text = try openssl(["x509", "-in", directory.file("leaf.pem"), "-noout", "-text"]).output
        for expected in [
            "Version: 3 (0x2)", "Serial Number: 305419896 (0x12345678)", "X509v3 Basic Constraints: critical", "CA:FALSE",
            "X509v3 Key Usage: critical", "Digital Signature", "TLS Web Server Authentication",
            "X509v3 Subject Key Identifier", "X509v3 Authority Key Identifier",
            "DNS:bank.test, DNS:*.bank.test, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1",
        ] {
            #expect(text.contains(expected), "missing \(expected)")
        }
        let authority = try openssl(["x509", "-in", directory.file("intermediate.cer"), "-inform", "DER", "-noout", "-text"]).output
        #expect(authority.contains("CA:TRUE, pathlen:0"))
        #expect(authority.contains("Certificate Sign, CRL Sign"))

        try Certificate.writeBundle([intermediate.certificate], to: directory.file("untrusted.pem"))
        let verify = try openssl([
            "verify", "-attime", String(Int(clock.timeIntervalSince1970)), "-CAfile", directory.file("root.pem"),
            "-untrusted", directory.file("untrusted.pem"), "-verify_hostname", "www.bank.test", directory.file("leaf.pem"),
        ])
        #expect(verify.status == 0, "\(verify.output)")
    }

    @Test func fingerprintsAndPinsAgreeWithTheOpenSSLTool() throws {
        let leaf = try chain().leaf.certificate
        let directory = TemporaryDirectory()
        try leaf.write(to: directory.file("leaf.pem"))
        let fingerprint = try shell("openssl x509 -noout -fingerprint -sha256 -in \(directory.file("leaf.pem"))")
        #expect(fingerprint == "sha256 Fingerprint=" + leaf.sha256FingerprintText)

        let publicKey = "openssl x509 -noout -pubkey -in \(directory.file("leaf.pem")) | openssl pkey -pubin -outform DER"
        #expect(try shell(publicKey + " | openssl enc -base64 -A") == Data(leaf.publicKeyInfo).base64EncodedString())
        #expect(try shell(publicKey + " | openssl dgst -sha256 -binary | openssl enc -base64 -A") == leaf.publicKeySHA256Base64)
        #expect(leaf.publicKeyPin == "sha256//" + leaf.publicKeySHA256Base64)
    }

    @Test func aForgedLeafCopiesTheRealNamesButIsSignedByTheAttackerWithOneReusedKey() throws {
        let real = try chain().leaf.certificate
        let attacker = try factory.makeIdentity(.authority(label: "Attacker CA", commonName: "Attacker CA", notBefore: start, notAfter: end))
        let forged = try factory.forge(impersonating: real, signedBy: attacker)
        let forgedAgain = try factory.forge(impersonating: real, signedBy: attacker)

        #expect(forged.certificate.subject == DistinguishedName(commonName: "bank.test", organization: "Example Bank"))
        #expect(forged.certificate.dnsNames == real.dnsNames)
        #expect(forged.certificate.ipAddresses == real.ipAddresses)
        #expect(forged.certificate.issuer == attacker.certificate.subject)
        #expect(forged.certificate.isSigned(by: attacker.certificate))
        #expect(!forged.certificate.isSigned(by: real))
        #expect(forged.certificate.publicKeyInfo != real.publicKeyInfo)
        #expect(forged.certificate.publicKeyInfo == forgedAgain.certificate.publicKeyInfo)
        #expect(forged.certificate.notBefore < clock && clock < forged.certificate.notAfter)
        let text = try openssl(["x509", "-noout", "-text"], input: forged.certificate.pemEncoded()).output
        #expect(text.contains("X509v3 Authority Key Identifier"))
        #expect(!text.contains("X509v3 Subject Key Identifier"))
    }

    @Test func aSpecWithAnInvalidNameIsRefusedNamingTheCertificateAndField() throws {
        let spec = CertificateSpec.serverLeaf(label: "bad", dnsNames: ["bank.test,evil.test"], notBefore: start, notAfter: end)
        #expect(
            throws: PKIError.invalidSpec(
                label: "bad", field: "dnsNames", reason: "'bank.test,evil.test' is not a DNS name (letters, digits, '.', '-', '_' and a leading '*.' only)")
        ) {
            try factory.makeIdentity(spec)
        }
        let backwards = CertificateSpec.serverLeaf(label: "late", dnsNames: ["bank.test"], notBefore: end, notAfter: start)
        #expect(throws: PKIError.invalidSpec(label: "late", field: "validity", reason: "ends before it starts")) { try factory.makeIdentity(backwards) }
    }

    @Test func theSummaryShowsWhatALearnerComparesBetweenRealAndForged() throws {
        let leaf = try chain().leaf.certificate
        let summary = leaf.summary
        for expected in [
            "'bank-leaf'", "subject  CN=bank.test, OU=Online, O=Example Bank", "issuer   CN=Bank Intermediate",
            "SAN      DNS:bank.test, DNS:*.bank.test, IP:127.0.0.1, IP:::1",
            "valid    2026-01-01 00:00:00 UTC to 2027-01-01 00:00:00 UTC", "key      EC P-256", "CA       no",
            "SHA-256  " + leaf.sha256FingerprintText, "SPKI pin " + leaf.publicKeyPin,
        ] {
            #expect(summary.contains(expected), "missing \(expected) in\n\(summary)")
        }
    }
}
