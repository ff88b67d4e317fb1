import Foundation
import PKI
import Testing

/// Many real RSA certificates write sha256WithRSAEncryption with NULL parameters in one of their two
/// AlgorithmIdentifiers and none in the other. Apple accepts them, and so must the simulator.
struct SignatureAlgorithmEncodingTests {
    let start = clock.addingTimeInterval(-86_400), end = clock.addingTimeInterval(365 * 86_400)

    @Test func anIntermediateWhoseOuterAlgorithmHasNoParametersStillLinksTheChain() throws {
        let root = try factory.makeIdentity(
            .authority(label: "Root", commonName: "Root", notBefore: start, notAfter: end), keyType: .rsa2048)
        let issued = try factory.makeIdentity(
            .authority(label: "Intermediate", commonName: "Intermediate", notBefore: start, notAfter: end), keyType: .rsa2048, signedBy: root)
        let intermediate = try #require(try Certificate.parseAll(DER.withoutOuterAlgorithmParameters(issued.certificate.der), source: "edited").first)
        let server = try factory.makeIdentity(
            .serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: end), signedBy: issued)
        #expect(intermediate.der != issued.certificate.der, "the edit changed the encoding")
        #expect(intermediate.publicKeyInfo == issued.certificate.publicKeyInfo)

        let trust = ServerTrust(
            certificates: [server.certificate, intermediate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]), policy: .ssl(host: "bank.test"),
            verifyDate: clock)
        let result = trust.evaluate()

        #expect(result.failures.isEmpty, "\(result.failures)")
        #expect(result.path == [server.certificate, intermediate, root.certificate])
        #expect(intermediate.isSigned(by: root.certificate))
    }

    @Test func aDifferentAlgorithmOutsideTheSignedPartIsStillRejected() throws {
        let root = try factory.makeIdentity(.authority(label: "Root", commonName: "Root", notBefore: start, notAfter: end), keyType: .rsa2048)
        let server = try factory.makeIdentity(
            .serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: end), signedBy: root)
        // sha256WithRSAEncryption (…01 0B) outside becomes sha384WithRSAEncryption (…01 0C): a real inconsistency.
        let edited = try #require(try Certificate.parseAll(DER.withOuterAlgorithmLastByte(server.certificate.der, 0x0C), source: "edited").first)

        let trust = ServerTrust(
            certificates: [edited], deviceTrustStore: DeviceTrustStore(system: [root.certificate]), policy: .ssl(host: "bank.test"), verifyDate: clock)

        let failures = trust.evaluate().failures
        #expect(failures.map(\.kind) == [.badSignature], "\(failures)")
    }
}

/// Just enough DER to rewrite a certificate's outer signature AlgorithmIdentifier, which lies outside
/// the signed TBSCertificate, so the signature stays valid.
enum DER {
    /// The (tag, header length, content length) of the element at `offset`.
    static func header(_ bytes: [UInt8], at offset: Int) -> (headerLength: Int, length: Int) {
        let first = Int(bytes[offset + 1])
        guard first & 0x80 != 0 else { return (2, first) }
        let count = first & 0x7F
        let length = bytes[(offset + 2)..<(offset + 2 + count)].reduce(0) { $0 << 8 | Int($1) }
        return (2 + count, length)
    }

    static func encodeLength(_ length: Int) -> [UInt8] {
        guard length >= 0x80 else { return [UInt8(length)] }
        var bytes: [UInt8] = []
        var rest = length
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// The certificate's three parts: TBSCertificate, signature AlgorithmIdentifier, signature BIT STRING.
    static func parts(_ certificate: [UInt8]) -> [[UInt8]] {
        var offset = header(certificate, at: 0).headerLength
        var result: [[UInt8]] = []
        while offset < certificate.count {
            let element = header(certificate, at: offset)
            result.append(Array(certificate[offset..<(offset + element.headerLength + element.length)]))
            offset += element.headerLength + element.length
        }
        return result
    }

    static func sequence(_ content: [UInt8]) -> [UInt8] { [0x30] + encodeLength(content.count) + content }

    /// The same certificate with the outer AlgorithmIdentifier's NULL parameters left out.
    static func withoutOuterAlgorithmParameters(_ certificate: [UInt8]) -> [UInt8] {
        let parts = parts(certificate)
        let algorithm = parts[1]
        precondition(algorithm.suffix(2) == [0x05, 0x00], "the outer AlgorithmIdentifier has NULL parameters")
        let oid = Array(algorithm[header(algorithm, at: 0).headerLength..<(algorithm.count - 2)])
        return sequence(parts[0] + sequence(oid) + parts[2])
    }

    /// The same certificate with the last byte of the outer algorithm's OID replaced.
    static func withOuterAlgorithmLastByte(_ certificate: [UInt8], _ byte: UInt8) -> [UInt8] {
        var parts = parts(certificate)
        precondition(parts[1].suffix(2) == [0x05, 0x00])
        parts[1][parts[1].count - 3] = byte
        return sequence(parts.joined().map { $0 })
    }
}
