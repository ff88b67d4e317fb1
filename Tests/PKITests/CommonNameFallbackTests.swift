import Foundation
import PKI
import Testing

/// iOS 12 read the host name from the subject's common name when the SAN had no DNS name
/// (`SecCertificateCopyDNSNames`, Security-58286); iOS 13 on reads the SAN only.
struct CommonNameFallbackTests {
    func root() throws -> Identity {
        try factory.makeIdentity(.authority(label: "Root", commonName: "Root", notBefore: clock - 86_400, notAfter: clock + 3_650 * 86_400))
    }

    func leaf(commonName: String, dnsNames: [String] = [], ipAddresses: [String] = [], signedBy root: Identity) throws -> Identity {
        try factory.makeIdentity(
            .serverLeaf(
                label: "leaf", commonName: commonName, dnsNames: dnsNames, ipAddresses: ipAddresses, notBefore: clock - 86_400,
                notAfter: clock + 300 * 86_400),
            signedBy: root)
    }

    func failures(_ server: Identity, _ root: Identity, on platform: Platform, host: String = "bank.test") -> [TrustFailure] {
        ServerTrust(
            certificates: [server.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]), policy: .ssl(host: host),
            verifyDate: clock, platform: platform
        ).evaluate().failures
    }

    @Test func aLeafThatNamesTheHostOnlyInItsCommonNameIsAcceptedOnIOS12AndRefusedFromIOS13On() throws {
        let root = try root()
        let server = try leaf(commonName: "bank.test", signedBy: root)

        #expect(failures(server, root, on: .iOS12).isEmpty)
        for platform in [Platform.iOS13, .iOS16] {
            #expect(failures(server, root, on: platform).map(\.kind) == [.hostnameMismatch(host: "bank.test")])
            #expect(
                failures(server, root, on: platform).first?.description
                    == "'leaf' has no names in its SAN, not 'bank.test'; its common name 'bank.test' is never used")
        }
    }

    @Test func iOS12ReadsTheCommonNameWhenTheSANHasOnlyAnIPAddressButNotWhenItHasADNSName() throws {
        let root = try root()
        #expect(failures(try leaf(commonName: "bank.test", ipAddresses: ["10.0.0.1"], signedBy: root), root, on: .iOS12).isEmpty)

        let other = failures(try leaf(commonName: "bank.test", dnsNames: ["other.test"], signedBy: root), root, on: .iOS12)
        #expect(other.map(\.kind) == [.hostnameMismatch(host: "bank.test", commonNameReader: .iOS12)])
        #expect(
            other.first?.description
                == "'leaf' is issued for other.test, not 'bank.test'; iOS 12 reads the common name only when the SAN has no DNS name, "
                + "so its common name 'bank.test' is not used")
    }

    @Test func onIOS12AWrongCommonNameIsNamedAsTheNameThatWasCompared() throws {
        let root = try root()
        let wrong = failures(try leaf(commonName: "*.other.test", signedBy: root), root, on: .iOS12, host: "www.bank.test")
        #expect(
            wrong.first?.description
                == "'leaf' has no names in its SAN, not 'www.bank.test'; its SAN has no DNS name, so iOS 12 compares its common name "
                + "'*.other.test', which does not name 'www.bank.test' either")
        // A wildcard common name stands for one label, as a SAN DNS name does.
        #expect(failures(try leaf(commonName: "*.bank.test", signedBy: root), root, on: .iOS12, host: "www.bank.test").isEmpty)

        let notAHostName = failures(try leaf(commonName: "Bank Server", signedBy: root), root, on: .iOS12)
        #expect(
            notAHostName.first?.description
                == "'leaf' has no names in its SAN, not 'bank.test'; its SAN has no DNS name, but its common name 'Bank Server' is not "
                + "written as a host name, so iOS 12 does not compare it either")
    }

    // MARK: - OpenSSL's X509_check_host

    @Test func openSSLReadsTheCommonNameAsX509CheckHostDoesWhenTheSANHasNoDNSName() throws {
        let root = try root()
        #expect(failures(try leaf(commonName: "bank.test", signedBy: root), root, on: .openSSL).isEmpty)
        #expect(failures(try leaf(commonName: "bank.test", ipAddresses: ["10.0.0.1"], signedBy: root), root, on: .openSSL).isEmpty)
        #expect(failures(try leaf(commonName: "bank.test", signedBy: root), root, on: .android).map(\.kind) == [.hostnameMismatch(host: "bank.test")])
    }

    @Test func aMismatchUnderOpenSSLNamesX509CheckHostNotIOS12() throws {
        let root = try root()
        let other = failures(try leaf(commonName: "bank.test", dnsNames: ["other.test"], signedBy: root), root, on: .openSSL)
        #expect(other.map(\.kind) == [.hostnameMismatch(host: "bank.test", commonNameReader: .openSSL)])
        #expect(
            other.first?.description
                == "'leaf' is issued for other.test, not 'bank.test'; OpenSSL's X509_check_host reads the common name only when the SAN has no "
                + "DNS name, so its common name 'bank.test' is not used")
        let wrong = failures(try leaf(commonName: "other.test", signedBy: root), root, on: .openSSL)
        #expect(
            wrong.first?.description
                == "'leaf' has no names in its SAN, not 'bank.test'; its SAN has no DNS name, so OpenSSL's X509_check_host compares its common "
                + "name 'other.test', which does not name 'bank.test' either")
    }
}
