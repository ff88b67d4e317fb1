import Foundation
import PKI
import Testing

/// Trust failures that need a purpose-built chain, produced by `ServerTrust` from generated certificates.
struct TrustFailureTests {
    let start = clock.addingTimeInterval(-86_400), end = clock.addingTimeInterval(365 * 86_400)

    func authority(_ name: String, pathLength: Int? = nil, signedBy issuer: Identity? = nil) throws -> Identity {
        try factory.makeIdentity(.authority(label: name, commonName: name, pathLength: pathLength, notBefore: start, notAfter: end), signedBy: issuer)
    }

    func leaf(_ usages: [ExtendedKeyUsage] = [.serverAuth], signedBy issuer: Identity) throws -> Identity {
        var spec = CertificateSpec.serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: end)
        spec.extendedKeyUsage = usages
        return try factory.makeIdentity(spec, signedBy: issuer)
    }

    @Test func aLeafMadeOnlyForClientsCannotIdentifyAServer() throws {
        let root = try authority("Root")
        let clientOnly = try leaf([.clientAuth], signedBy: root)
        let trust = ServerTrust(
            certificates: [clientOnly.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]), policy: .ssl(host: "bank.test"),
            verifyDate: clock)

        #expect(trust.evaluate().failures.map(\.kind) == [.wrongExtendedKeyUsage])
        #expect(trust.evaluate().failures.first?.certificate == clientOnly.certificate)
    }

    @Test func theSameClientOnlyLeafPassesTheBasicX509PolicyWhichChecksNoPurpose() throws {
        let root = try authority("Root")
        let clientOnly = try leaf([.clientAuth], signedBy: root)
        let trust = ServerTrust(
            certificates: [clientOnly.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]), policy: .basicX509, verifyDate: clock)

        #expect(trust.evaluate().failures.isEmpty)
    }

    @Test func anIntermediateWithPathLengthZeroCannotHaveAnotherAuthorityBelowIt() throws {
        let root = try authority("Root")
        let intermediate = try authority("Intermediate", pathLength: 0, signedBy: root)
        let subordinate = try authority("Subordinate", signedBy: intermediate)
        let server = try leaf(signedBy: subordinate)
        let trust = ServerTrust(
            certificates: [server.certificate, subordinate.certificate, intermediate.certificate],
            deviceTrustStore: DeviceTrustStore(system: [root.certificate]),
            policy: .ssl(host: "bank.test"), verifyDate: clock)

        let failures = trust.evaluate().failures
        #expect(failures.map(\.kind) == [.pathLengthExceeded], "\(failures)")
    }

    @Test func withoutThePathLengthTheSameChainIsTrusted() throws {
        let root = try authority("Root")
        let intermediate = try authority("Intermediate", signedBy: root)
        let subordinate = try authority("Subordinate", signedBy: intermediate)
        let server = try leaf(signedBy: subordinate)
        let trust = ServerTrust(
            certificates: [server.certificate, subordinate.certificate, intermediate.certificate],
            deviceTrustStore: DeviceTrustStore(system: [root.certificate]),
            policy: .ssl(host: "bank.test"), verifyDate: clock)

        #expect(trust.evaluate().failures.isEmpty)
    }

    @Test func aRootWhoseOnlyExtendedKeyUsageIsAnyPurposeAnchorsATLSServerChain() throws {
        var spec = CertificateSpec.authority(label: "Any Purpose Root", commonName: "Any Purpose Root", notBefore: start, notAfter: end)
        spec.extendedKeyUsage = [.anyExtendedKeyUsage]
        let root = try factory.makeIdentity(spec)
        let intermediate = try authority("Intermediate", signedBy: root)
        let server = try leaf(signedBy: intermediate)
        let trust = ServerTrust(
            certificates: [server.certificate, intermediate.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]),
            policy: .ssl(host: "bank.test"),
            verifyDate: clock)

        let result = trust.evaluate()
        #expect(result.failures.isEmpty, "\(result.failures)")
        #expect(result.path == [server.certificate, intermediate.certificate, root.certificate])
    }

    @Test func anIntermediateWhoseOnlyExtendedKeyUsageIsAnyPurposeMayIssueTLSServerCertificates() throws {
        let root = try authority("Root")
        var spec = CertificateSpec.authority(label: "Any Purpose CA", commonName: "Any Purpose CA", notBefore: start, notAfter: end)
        spec.extendedKeyUsage = [.anyExtendedKeyUsage]
        let intermediate = try factory.makeIdentity(spec, signedBy: root)
        let server = try leaf(signedBy: intermediate)
        let trust = ServerTrust(
            certificates: [server.certificate, intermediate.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]),
            policy: .ssl(host: "bank.test"),
            verifyDate: clock)

        #expect(trust.evaluate().failures.isEmpty, "\(trust.evaluate().failures)")
    }

    @Test func anIntermediateLimitedToClientsStillCannotIssueForAServer() throws {
        let root = try authority("Root")
        var spec = CertificateSpec.authority(label: "Client CA", commonName: "Client CA", notBefore: start, notAfter: end)
        spec.extendedKeyUsage = [.clientAuth]
        let intermediate = try factory.makeIdentity(spec, signedBy: root)
        let server = try leaf(signedBy: intermediate)
        let trust = ServerTrust(
            certificates: [server.certificate, intermediate.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]),
            policy: .ssl(host: "bank.test"),
            verifyDate: clock)

        #expect(trust.evaluate().failures == [TrustFailure(kind: .wrongExtendedKeyUsage, certificate: intermediate.certificate)])
    }

    @Test func anEmptyHostNameIsNamedByNoCertificate() throws {
        let root = try authority("Root")
        let server = try leaf(signedBy: root)
        let trust = ServerTrust(
            certificates: [server.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]), policy: .ssl(host: ""), verifyDate: clock)

        #expect(trust.evaluate().failures == [TrustFailure(kind: .hostnameMismatch(host: ""), certificate: server.certificate)])
        #expect(trust.evaluate().failures.first?.description == "'leaf' is issued for bank.test, not ''; its common name 'bank.test' is never used")
    }

    @Test func anEmptyHostNameIsReportedWhereAnyOtherWrongHostIs() throws {
        let root = try authority("Root")
        var spec = CertificateSpec.serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: clock.addingTimeInterval(-60))
        spec.extendedKeyUsage = [.clientAuth]
        let server = try factory.makeIdentity(spec, signedBy: root)
        func failures(_ host: String) -> [String] {
            ServerTrust(
                certificates: [server.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]), policy: .ssl(host: host), verifyDate: clock
            )
            .evaluate().failures.map(\.kind.code)
        }

        #expect(failures("") == ["wrongExtendedKeyUsage", "hostnameMismatch", "expired"])
        #expect(failures("") == failures("other.test"))
    }

    @Test func anIntermediateWhoseNameConstraintsExcludeTheLeafsNameIsANamedViolation() throws {
        let root = try authority("Root")
        var spec = CertificateSpec.authority(label: "Constrained CA", commonName: "Constrained CA", notBefore: start, notAfter: end)
        spec.nameConstraints = NameConstraints(excludedDNSNames: ["bank.test"])
        let constrained = try factory.makeIdentity(spec, signedBy: root)
        let server = try leaf(signedBy: constrained)
        let trust = ServerTrust(
            certificates: [server.certificate, constrained.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]),
            policy: .ssl(host: "bank.test"),
            verifyDate: clock)

        let failures = trust.evaluate().failures
        #expect(failures == [TrustFailure(kind: .nameConstraintViolation, certificate: server.certificate)])
        #expect(failures.first?.kind.code == "nameConstraintViolation")
        #expect(
            failures.first?.description
                == "'leaf' has a name (in its subject or SAN) that the name constraints of a certificate authority above it do not allow")
        #expect(failures.first?.openSSLError.text == "excluded subtree violation")
    }

    @Test func aNameOutsideThePermittedNamesIsTheSameViolation() throws {
        let root = try authority("Root")
        var spec = CertificateSpec.authority(label: "Constrained CA", commonName: "Constrained CA", notBefore: start, notAfter: end)
        spec.nameConstraints = NameConstraints(permittedDNSNames: ["shop.test"])
        let constrained = try factory.makeIdentity(spec, signedBy: root)
        let server = try leaf(signedBy: constrained)
        let trust = ServerTrust(
            certificates: [server.certificate, constrained.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]), policy: .basicX509,
            verifyDate: clock)

        #expect(trust.evaluate().failures.map(\.kind) == [.nameConstraintViolation])
    }

    @Test func aNameInsideThePermittedNamesPasses() throws {
        let root = try authority("Root")
        var spec = CertificateSpec.authority(label: "Constrained CA", commonName: "Constrained CA", notBefore: start, notAfter: end)
        spec.nameConstraints = NameConstraints(permittedDNSNames: ["bank.test"], excludedDNSNames: ["evil.bank.test"])
        let constrained = try factory.makeIdentity(spec, signedBy: root)
        let server = try leaf(signedBy: constrained)
        let trust = ServerTrust(
            certificates: [server.certificate, constrained.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]),
            policy: .ssl(host: "bank.test"),
            verifyDate: clock)

        #expect(trust.evaluate().failures.isEmpty)
    }

    @Test func anUnknownCriticalExtensionIsNamedToo() throws {
        let root = try authority("Root")
        let server = try leaf(signedBy: root)
        // The leaf's DER with one extension's OID changed to an unknown one; it is critical (basicConstraints).
        let basicConstraintsOID: [UInt8] = [0x06, 0x03, 0x55, 0x1D, 0x13]
        var der = server.certificate.der
        let at = try #require((0..<(der.count - 5)).first { Array(der[$0..<($0 + 5)]) == basicConstraintsOID })
        der[at + 4] = 0x7F
        let edited = try #require(try Certificate.parseAll(der, source: "edited").first)
        let trust = ServerTrust(certificates: [edited], deviceTrustStore: DeviceTrustStore(system: [edited]), policy: .basicX509, verifyDate: clock)

        #expect(trust.evaluate().failures.map(\.kind).contains(.unsupportedCriticalExtension), "\(trust.evaluate().failures)")
    }

    @Test func anErrorWithNoLessonStillSaysWhatOpenSSLFound() throws {
        let root = try authority("Root")
        let failure = TrustFailure(
            kind: .other(code: 50, message: "application verification failure"), certificate: root.certificate, openSSLCode: 50)

        #expect(failure.kind.code == "otherVerificationError")
        #expect(failure.description == "'Root' failed a check mitmsim has no lesson for; OpenSSL says: application verification failure (error 50)")
        #expect(failure.openSSLError.text == "application verification failure")
    }
}
