import Foundation
import PKI
import Testing

/// How `ServerTrust` decides that a leaf names the host: Apple's rules (SecPolicyCheckCertSSLHostname),
/// checked with generated certificates whose SAN holds the names under test.
struct HostNameMatchingTests {
    static let start = clock.addingTimeInterval(-86_400), end = clock.addingTimeInterval(365 * 86_400)
    static let root = Result { try factory.makeIdentity(.authority(label: "Root", commonName: "Root", notBefore: start, notAfter: end)) }

    /// True when a chain from a trusted root to a leaf with these SAN entries is trusted for `host`.
    func leaf(dnsNames: [String], ipAddresses: [String] = [], names host: String) throws -> Bool {
        let root = try Self.root.get()
        let spec = CertificateSpec.serverLeaf(
            label: "leaf", commonName: "leaf", dnsNames: dnsNames, ipAddresses: ipAddresses, notBefore: Self.start, notAfter: Self.end)
        let server = try factory.makeIdentity(spec, signedBy: root)
        let result = ServerTrust(
            certificates: [server.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]), policy: .ssl(host: host), verifyDate: clock
        )
        .evaluate()
        let codes = result.failures.map(\.kind.code)
        #expect(codes.allSatisfy { $0 == "hostnameMismatch" }, "only the host check may fail here: \(result.failures)")
        return codes.isEmpty
    }

    @Test func lettersMatchWhateverTheirCase() throws {
        #expect(try leaf(dnsNames: ["Bank.Test"], names: "bANK.test"))
    }

    @Test func oneTrailingDotOnTheHostIsIgnored() throws {
        #expect(try leaf(dnsNames: ["bank.test"], names: "bank.test."))
        #expect(try !leaf(dnsNames: ["bank.test"], names: "bank.test.."))
    }

    @Test func aSANNameEndingInADotNamesNoHost() throws {
        #expect(try !leaf(dnsNames: ["bank.test."], names: "bank.test."))
        #expect(try !leaf(dnsNames: ["bank.test."], names: "bank.test"))
    }

    @Test func theMismatchSentenceSaysWhichSANEntriesWereNeverCompared() throws {
        let root = try Self.root.get()
        let spec = CertificateSpec.serverLeaf(label: "leaf", dnsNames: ["127.0.0.1"], notBefore: Self.start, notAfter: Self.end)
        let server = try factory.makeIdentity(spec, signedBy: root)
        let result = ServerTrust(
            certificates: [server.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]), policy: .ssl(host: "127.0.0.1"),
            verifyDate: clock
        )
        .evaluate()
        let sentence = try #require(result.failures.first).description
        #expect(sentence.contains("has no host names in its SAN, not '127.0.0.1'; its SAN entries '127.0.0.1' are not host names"), "\(sentence)")
        #expect(!sentence.contains("is issued for 127.0.0.1"))
    }

    @Test func aSANNameThatIsNotAHostNameIsSkipped() throws {
        #expect(try !leaf(dnsNames: ["-bank.test"], names: "-bank.test"))
        #expect(try !leaf(dnsNames: ["bank.123"], names: "bank.123"))
        #expect(try leaf(dnsNames: ["my_host.bank.test"], names: "my_host.bank.test"))
    }

    @Test func aWildcardStandsForExactlyOneLeftmostLabel() throws {
        #expect(try leaf(dnsNames: ["*.bank.test"], names: "www.bank.test"))
        #expect(try !leaf(dnsNames: ["*.bank.test"], names: "bank.test"))
        #expect(try !leaf(dnsNames: ["*.bank.test"], names: "a.www.bank.test"))
    }

    @Test func aWildcardIsAWholeLeftmostLabelOrNothing() throws {
        #expect(try !leaf(dnsNames: ["w*.bank.test"], names: "www.bank.test"))
        #expect(try !leaf(dnsNames: ["*w.bank.test"], names: "www.bank.test"))
        #expect(try !leaf(dnsNames: ["www.*.test"], names: "www.bank.test"))
    }

    @Test func aWildcardNeedsTwoLabelsToItsRight() throws {
        #expect(try !leaf(dnsNames: ["*.test"], names: "bank.test"))
    }

    @Test func aWildcardStandsForAnyLabelEvenOneWithAnUnderscore() throws {
        #expect(try leaf(dnsNames: ["*.bank.test"], names: "my_host.bank.test"))
    }

    @Test func aHostStartingWithADotIsNotASuffixMatch() throws {
        #expect(try !leaf(dnsNames: ["www.bank.test"], names: ".bank.test"))
    }

    @Test func anIPAddressHostIsMatchedOnlyAgainstTheSANsIPAddresses() throws {
        #expect(try leaf(dnsNames: [], ipAddresses: ["127.0.0.1"], names: "127.0.0.1"))
        #expect(try leaf(dnsNames: [], ipAddresses: ["0:0:0:0:0:0:0:1"], names: "::1"))
        #expect(try !leaf(dnsNames: ["127.0.0.1"], names: "127.0.0.1"))
        #expect(try !leaf(dnsNames: ["bank.test"], ipAddresses: ["127.0.0.1"], names: "127.0.0.2"))
    }

    @Test func anIPAddressIsReadAsApplesParserReadsIt() throws {
        #expect(try leaf(dnsNames: [], ipAddresses: ["127.0.0.1"], names: "127.000.000.001"))
        #expect(try leaf(dnsNames: [], ipAddresses: ["::1"], names: "[::1]"))
        #expect(try !leaf(dnsNames: [], ipAddresses: ["::ffff:127.0.0.1"], names: "::ffff:127.0.0.1"))
    }

    @Test func anInternationalizedNameMatchesOnlyAsItsASCIIForm() throws {
        #expect(try leaf(dnsNames: ["xn--bcher-kva.test"], names: "XN--BCHER-KVA.test"))
        #expect(try !leaf(dnsNames: ["xn--bcher-kva.test"], names: "bücher.test"))
        #expect(try leaf(dnsNames: ["*.bank.test"], names: "xn--bcher-kva.bank.test"))
    }

    @Test func aMismatchedIPAddressIsReportedAsAWrongHost() throws {
        let root = try Self.root.get()
        let server = try factory.makeIdentity(
            // A subject, as `leaf(dnsNames:names:)` gives: an empty one would be a fault of its own on iOS (`emptySubject`).
            .serverLeaf(label: "leaf", commonName: "leaf", dnsNames: [], ipAddresses: ["127.0.0.1"], notBefore: Self.start, notAfter: Self.end),
            signedBy: root)
        let trust = ServerTrust(
            certificates: [server.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]), policy: .ssl(host: "127.0.0.2"),
            verifyDate: clock)

        #expect(trust.evaluate().failures == [TrustFailure(kind: .hostnameMismatch(host: "127.0.0.2"), certificate: server.certificate)])
    }
}
