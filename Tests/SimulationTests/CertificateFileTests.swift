import Foundation
import PKI
import Simulation
import TestSupport
import Testing

/// A lesson's world may read its certificates and keys from files (`file`, `keyFile`) instead of generating them:
/// the run, `pki export` and the world use them byte for byte, and every broken file is one line naming the
/// lesson, the key path and the file. The files are made here, at test time, by the PKI target.
struct CertificateFileTests {
    /// A directory with a CA and a server certificate it signed, each with its key, in PEM and in DER.
    final class Fixture {
        let directory = NSTemporaryDirectory() + "mitmsim-files-" + UUID().uuidString
        let clock = Date(timeIntervalSince1970: 1_780_272_000)  // 2026-06-01T00:00:00Z
        let ca: Identity
        let server: Identity
        /// A CA that is not in the lesson's world, and a server certificate it signed.
        let stranger: Identity
        let strangersServer: Identity

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let factory = CertificateFactory(now: clock)
            let (start, end) = (clock - 30 * 86_400, clock + 300 * 86_400)
            ca = try factory.makeIdentity(.authority(label: "My Test CA", commonName: "My Test CA", notBefore: start, notAfter: end))
            server = try factory.makeIdentity(.serverLeaf(label: "bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: end), signedBy: ca)
            stranger = try factory.makeIdentity(.authority(label: "Stranger CA", commonName: "Stranger CA", notBefore: start, notAfter: end))
            strangersServer = try factory.makeIdentity(
                .serverLeaf(label: "bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: end), signedBy: stranger)
            try ca.certificate.write(to: path("ca.pem"))
            try ca.certificate.write(to: path("ca.cer"))
            try ca.privateKey.write(to: path("ca.key"))
            try server.certificate.write(to: path("server.pem"))
            try server.certificate.write(to: path("server.der"))
            try server.privateKey.write(to: path("server.key"))
            try strangersServer.certificate.write(to: path("strangers-server.pem"))
            try strangersServer.privateKey.write(to: path("strangers-server.key"))
            // What a reader gets by renaming the PEM file instead of converting it.
            try FileManager.default.copyItem(atPath: path("ca.pem"), toPath: path("ca-renamed.cer"))
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        func path(_ name: String) -> String { directory + "/" + name }

        /// A lesson next to the files: `authority` and `leaf` are the world's two entries, `pinned` what the app pins.
        func lesson(
            authority: String = "file: ca.pem\n      keyFile: ca.key", leaf: String = "file: server.der\n      keyFile: server.key", pinned: String = "my-ca",
            attack: String = "attack: none"
        ) -> String {
            """
            version: 3
            title: Own certificates
            group: G
            summary: S
            lesson:
              story: S
              reveal: R
            clock: "2026-06-01T00:00:00Z"
            world:
              authorities:
                - id: my-ca
                  \(authority)
                - id: attacker-ca
              leaves:
                - id: bank-server
                  \(leaf)
            server:
              host: bank.test
              leaf: bank-server
            attacker:
              \(attack)
            client:
              library: afnetworking-4
              ats:
                NSExceptionDomains:
                  bank.test:
                    NSExceptionAllowsInsecureHTTPLoads: true
              policy:
                pinningMode: certificate
                allowInvalidCertificates: true
                pinnedCertificates: [\(pinned)]
            expect:
              trusted: true
              attackerSawPlaintext: false
              serverReceivedRequest: true
            """
        }

        func load(_ text: String) throws -> Scenario {
            let file = path("lesson.yaml")
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            return try ScenarioLoader.load(file)
        }

        /// The one line a broken lesson is refused with, after the file name.
        func refusal(_ text: String) -> String {
            do {
                _ = try load(text)
                return "loaded"
            } catch {
                return "\(error)".replacingOccurrences(of: path("lesson.yaml") + ": ", with: "")
            }
        }
    }

    @Test func theWorldRunAndExportUseTheFilesCertificatesAsTheyAre() throws {
        let fixture = try Fixture()
        let scenario = try fixture.load(fixture.lesson())
        #expect(scenario.world.leaves[0].issuer == "my-ca", "the issuer is the authority whose certificate signed the file's")
        let world = try World(scenario)
        #expect(world["my-ca"]?.certificate.der == fixture.ca.certificate.der)
        #expect(world.server.leaf.certificate.der == fixture.server.certificate.der)
        #expect(world.server.root?.id == "my-ca")

        let report = try ScenarioRunner.run(scenario, world: world)
        #expect(report.trusted, "\(report.evaluation?.steps ?? [])")
        #expect(report.serverReceivedRequest)

        let exported = fixture.path("export")
        _ = try PKIExport.write(scenario, to: exported)
        #expect(try Certificate.loadAll(from: exported + "/bank-server.pem").map(\.der) == [fixture.server.certificate.der])
        #expect(try PrivateKey.load(from: exported + "/my-ca.key").publicKeyInfo() == fixture.ca.certificate.publicKeyInfo)
    }

    /// The lab builds its world at today's clock from the lesson and writes it to its directory: the certificates
    /// there, which its bank serves, are the files'.
    @Test func theLabServesTheFilesCertificate() throws {
        let fixture = try Fixture()
        let scenario = try fixture.load(fixture.lesson(attack: "attack: forge\n  authority: attacker-ca"))
        let lab = try Lab(scenario, directory: fixture.path("lab")) { _ in }
        defer { lab.stop() }
        #expect(lab.files.contains(fixture.path("lab/bank-server.cer")))
        #expect(try Certificate.loadAll(from: fixture.path("lab/bank-server.cer")).map(\.der) == [fixture.server.certificate.der])
        #expect(try Certificate.loadAll(from: fixture.path("lab/my-ca.cer")).map(\.der) == [fixture.ca.certificate.der])
    }

    @Test func aForgeryFromTheAttackersCAIsRefusedAtThePinnedCA() throws {
        let fixture = try Fixture()
        let report = try ScenarioRunner.run(fixture.load(fixture.lesson(attack: "attack: forge\n  authority: attacker-ca")))
        #expect(!report.trusted)
        #expect(report.evaluation?.decidingStep?.check == .pinnedAnchors)
    }

    @Test(arguments: [
        (
            "file: ca.pem\n      keyFile: server.key",
            "world.authorities[0].keyFile: 'server.key' is not the key of 'ca.pem' (the certificate carries another public key)"
        ),
        ("file: ca.key\n      keyFile: ca.key", "world.authorities[0].file: ca.key: holds a private key where a certificate belongs"),
        ("file: nothere.pem\n      keyFile: ca.key", "world.authorities[0].file: 'nothere.pem' no such file"),
        ("file: ca.pem", "world.authorities[0].keyFile: missing: a certificate read from a file needs its private key"),
        ("keyFile: ca.key", "world.authorities[0].keyFile: names the key of a certificate file; give `file` too"),
        (
            "file: ca.pem\n      keyFile: ca.key\n      pathLength: 0",
            "world.authorities[0].pathLength: describes a certificate to make, and this one is read from 'ca.pem'"
        ),
    ])
    func aBrokenAuthorityFileIsOneLineNamingTheKeyAndTheFile(_ authority: String, _ expected: String) throws {
        let fixture = try Fixture()
        let refusal = fixture.refusal(fixture.lesson(authority: authority))
        #expect(refusal.hasPrefix(expected), "\(refusal)")
    }

    /// What `openssl pkey` writes: a DER key is read, an encrypted one refused before OpenSSL could ask for a passphrase.
    @Test func aDERKeyIsReadAndAnEncryptedKeyIsRefusedInOneLine() throws {
        let fixture = try Fixture()
        let converted = try Subprocess.run(
            "/usr/bin/env", ["openssl", "pkey", "-in", fixture.path("server.key"), "-outform", "der", "-out", fixture.path("server-key.der")])
        #expect(converted.status == 0, "\(converted.output)")
        let scenario = try fixture.load(fixture.lesson(leaf: "file: server.der\n      keyFile: server-key.der"))
        #expect(try World(scenario).server.leaf.identity.privateKey.publicKeyInfo() == fixture.server.certificate.publicKeyInfo)

        let encrypted = try Subprocess.run(
            "/usr/bin/env",
            ["openssl", "pkey", "-in", fixture.path("server.key"), "-aes256", "-passout", "pass:secret", "-out", fixture.path("server-encrypted.key")])
        #expect(encrypted.status == 0, "\(encrypted.output)")
        #expect(
            fixture.refusal(fixture.lesson(leaf: "file: server.der\n      keyFile: server-encrypted.key"))
                == "world.leaves[0].keyFile: 'server-encrypted.key' is encrypted with a passphrase; write it unencrypted with "
                + "`openssl pkey -in server-encrypted.key -out plain.key`")
    }

    @Test func aCertificateWhoseIssuerIsNotInTheWorldIsRefused() throws {
        let fixture = try Fixture()
        let refusal = fixture.refusal(fixture.lesson(leaf: "file: strangers-server.pem\n      keyFile: strangers-server.key"))
        #expect(
            refusal.hasPrefix(
                "world.leaves[0].file: 'strangers-server.pem' was issued by CN=Stranger CA, which is not in the world: no authority of "
                    + "world.authorities read from a file signed it"), "\(refusal)")
    }

    @Test func anIssuerTheLessonWritesMustBeTheOneThatSigned() throws {
        let fixture = try Fixture()
        let refusal = fixture.refusal(fixture.lesson(leaf: "file: server.der\n      keyFile: server.key\n      issuer: attacker-ca"))
        #expect(refusal.hasPrefix("world.leaves[0].issuer: 'server.der' was signed by 'my-ca', not 'attacker-ca'"), "\(refusal)")
    }

    @Test func aFileLargerThanTheLimitIsRefusedWithoutReadingItWhole() throws {
        let fixture = try Fixture()
        try Data(count: Certificate.fileSizeLimit + 1).write(to: URL(fileURLWithPath: fixture.path("huge.pem")))
        let refusal = fixture.refusal(fixture.lesson(leaf: "file: huge.pem\n      keyFile: server.key"))
        #expect(refusal == "world.leaves[0].file: 'huge.pem' is larger than 1 MiB, the most mitmsim reads from a certificate file", "\(refusal)")
    }

    /// As AFNetworking reads a bundle: `SecCertificateCreateWithData` takes DER only.
    @Test func pinningAPEMFileRenamedCerIsRefusedAndTheConvertedOneIsPinned() throws {
        let fixture = try Fixture()
        let renamed = fixture.refusal(fixture.lesson(authority: "file: ca-renamed.cer\n      keyFile: ca.key"))
        #expect(
            renamed.hasPrefix(
                "client.policy.pinnedCertificates[0]: 'my-ca' is read from ca-renamed.cer: holds PEM text, and a pinned certificate an app bundles as "
                    + ".cer is read as DER: SecCertificateCreateWithData returns NULL for PEM"), "\(renamed)")
        #expect(fixture.refusal(fixture.lesson(authority: "file: ca.cer\n      keyFile: ca.key")) == "loaded")
    }

    @Test func aLessonThatIsNoFileMayNameNoCertificateFile() throws {
        let fixture = try Fixture()
        let error = try #require(throws: ScenarioError.self) { try ScenarioLoader.decode(Data(fixture.lesson().utf8), file: "b.yaml", id: "b") }
        #expect("\(error)" == "b.yaml: world.authorities[0].file: names a file next to the scenario, and this scenario is not read from a file")
    }
}
