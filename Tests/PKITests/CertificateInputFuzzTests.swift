import Foundation
import PKI
import TestSupport
import Testing

/// Certificates, keys and `.p12` files broken the ways a bad download or a hostile file breaks them, made
/// the same way on every run from one seed: each reads, or is refused in one line naming its source, and
/// none costs much. (`Docs/fuzzing.md` runs the same parsers under libFuzzer for hours.)
struct CertificateInputFuzzTests {
    static let seed: UInt64 = 12

    /// A root, an RSA intermediate and an EC leaf, in every form mitmsim reads.
    static let inputs: (pem: [UInt8], chain: [UInt8], der: [UInt8], key: [UInt8], pkcs12: [UInt8]) = {
        let start = date("2026-01-01T00:00:00Z")
        let end = date("2027-01-01T00:00:00Z")
        let root = try! factory.makeIdentity(.authority(label: "Root", commonName: "Root", notBefore: start, notAfter: end))
        let intermediate = try! factory.makeIdentity(
            .authority(label: "Intermediate", commonName: "Intermediate", pathLength: 0, notBefore: start, notAfter: end), keyType: .rsa2048, signedBy: root)
        let leaf = try! factory.makeIdentity(
            .serverLeaf(label: "leaf", dnsNames: ["bank.test", "www.bank.test"], ipAddresses: ["127.0.0.1"], notBefore: start, notAfter: end),
            signedBy: intermediate)
        let chain = [leaf, intermediate, root].map(\.certificate)
        return (
            try! leaf.certificate.pemEncoded(), try! chain.flatMap { try $0.pemEncoded() }, chain.flatMap(\.der), try! leaf.privateKey.pemEncoded(),
            try! leaf.pkcs12(password: "secret")
        )
    }()

    /// Runs `read` on `count` mutations of each of `seeds`; returns how many were read and how many refused.
    func fuzz(_ seeds: [[UInt8]], count: Int, source: String, _ read: ([UInt8]) throws -> Void) -> (read: Int, refused: Int) {
        var mutator = InputMutator(seed: Self.seed)
        var (accepted, refused, slowest) = (0, 0, 0.0)
        for index in 0..<count {
            let input = mutator.binary(from: seeds[index % seeds.count])
            let start = Date()
            do {
                try read(input)
                accepted += 1
            } catch let error as PKIError {
                refused += 1
                #expect(error.description.hasPrefix(source + ": "), "\(source) input \(index): \(error)")
                #expect(!error.description.contains { $0.isNewline }, "\(source) input \(index): \(error)")
            } catch {
                Issue.record("\(source) input \(index) (seed \(Self.seed)) threw \(type(of: error)), not a PKIError: \(error)")
            }
            slowest = max(slowest, Date().timeIntervalSince(start))
        }
        // Generous: a parse costs microseconds to milliseconds.
        #expect(slowest < 2, "the slowest \(source) input took \(slowest) s")
        return (accepted, refused)
    }

    @Test func everyMutatedCertificateFileReadsOrIsRefusedInOneLineNamingIt() {
        let count = Soak.size(500, long: 2_000)
        let outcome = fuzz([Self.inputs.pem, Self.inputs.chain, Self.inputs.der], count: count, source: "fuzzed.pem") { bytes in
            let certificates = try Certificate.parseAll(bytes, source: "fuzzed.pem")
            #expect((1...Certificate.fileCertificateLimit).contains(certificates.count))
            // What the CLI prints for every certificate it read.
            _ = certificates.map(\.summary)
        }
        #expect(outcome.read > count / 100 && outcome.refused > count / 2, "\(outcome)")
    }

    @Test func everyMutatedKeyReadsOrIsRefusedInOneLineNamingIt() {
        let outcome = fuzz([Self.inputs.key], count: 300, source: "fuzzed.key") { bytes in _ = try PrivateKey(pem: bytes, source: "fuzzed.key") }
        #expect(outcome.read > 5 && outcome.refused > 150, "\(outcome)")
    }

    @Test func everyMutatedP12OpensOrIsRefusedInOneLineNamingIt() {
        let outcome = fuzz([Self.inputs.pkcs12], count: 300, source: "fuzzed.p12") { bytes in
            _ = try Identity(pkcs12: bytes, password: "secret", source: "fuzzed.p12")
        }
        #expect(outcome.read > 5 && outcome.refused > 150, "\(outcome)")
    }

    @Test func aP12WithoutAMACOrWithAnExpensiveOneIsRefusedBeforeAnythingIsDecrypted() throws {
        let directory = TemporaryDirectory()
        let leaf = try factory.makeIdentity(.serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: clock, notAfter: clock.addingTimeInterval(86_400)))
        try leaf.certificate.write(to: directory.file("leaf.pem"))
        try leaf.privateKey.write(to: directory.file("leaf.key"))
        let make = "openssl pkcs12 -export -in \(directory.file("leaf.pem")) -inkey \(directory.file("leaf.key")) -passout pass:secret"
        _ = try shell("\(make) -nomac -out \(directory.file("nomac.p12"))")
        _ = try shell("\(make) -iter 200000 -out \(directory.file("slow.p12"))")
        _ = try shell("\(make) -out \(directory.file("usual.p12"))")
        #expect(throws: PKIError.badPKCS12(path: directory.file("nomac.p12"), detail: "it has no MAC to check the password with")) {
            try Identity.load(pkcs12Path: directory.file("nomac.p12"), password: "secret")
        }
        #expect(throws: PKIError.badPKCS12(path: directory.file("slow.p12"), detail: "it asks for 200000 MAC iterations; mitmsim allows 1 to 100000")) {
            try Identity.load(pkcs12Path: directory.file("slow.p12"), password: "secret")
        }
        #expect(try Identity.load(pkcs12Path: directory.file("usual.p12"), password: "secret").certificate == leaf.certificate)
    }

    /// libFuzzer's first finding: errors left queued between PEM blocks were put back from strings OpenSSL 3
    /// had already freed (a use after free that `swift test --sanitize=address` reports without the fix).
    @Test func junkAroundAPEMBlockReadsTheCertificateAndTouchesNoFreedMemory() throws {
        let input = """
            -D CERTI---
            CATE-----
            -----BEGIN CERTIFICATE-----
            MIIB8jCCAXigAwIBAgITBmyf18G7EEwpQ+Vxe3ssyBrBDjAKBggqhkjOPQQDAzA5
            MQswCQYDVQQGEwJVUzEPMA0GA1UEChMGQW1hem9uMRkwFwYDVQQDExBBbWF6b24g
            Um9vdCBDQSA0MB4XDTE1MDUyNjAwMDAwMFoXDTQwMDUyNjAwMDAwMFowOTELMAkG
            A1UEBhMCVVMxDzANBgNVBAoTBkFtYXpvbjEZMBcGA1UEAxMQQW1hem9uIFJvb3Qg
            Q0EgNDB2MBAGByqGSM49AgEGBSuBBAAiA2IABNKrijdPo1MN/sGKe0uoe0ZLY7Bi
            9i0b2whxIdIA6GO9mif78DluXeo9pcmBqqNbIJhFXRbb/egQbeOc4OO9X4Ri83Ck
            M6DLJC9wuoihKqB1+IGuYgbEgds5bimwHvouXKNCMEAwDwYDVR0TAQH/BAUwAwEB
            /zAOBgNVHQ8BAf8EBAMCAYYwHQYDVR0OBBYEFNPsxzplbszh2naaVvuc84ZtV+WB
            MAoGCCqGSM49BAMDA2gAMGUCMDqLIfG9fhGt0O9Yli/W651+kI0rz2ZVwyzjKKlw
            CkcO8DdZEv8tmZQoTipPNU0zWgIxAOp1AE47xDqUEpHJWEadIRNyp4iciuRMStuW
            1KyLa2tJElMzrdfkviT8tQp21KW8EA==
            -----END CERTIFICATE-----
            -----BEGERTIFICATE-----
            """
        #expect(try Certificate.parseAll(Array(input.utf8), source: "found.pem").map(\.label) == ["Amazon Root CA 4"])
    }
}
