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
        let trust = ServerTrust(certificates: [clientOnly.certificate], anchors: [root.certificate], policy: .ssl(host: "bank.test"), verifyDate: clock)

        #expect(trust.evaluate().failures.map(\.kind) == [.wrongExtendedKeyUsage])
        #expect(trust.evaluate().failures.first?.certificate == clientOnly.certificate)
    }

    @Test func theSameClientOnlyLeafPassesTheBasicX509PolicyWhichChecksNoPurpose() throws {
        let root = try authority("Root")
        let clientOnly = try leaf([.clientAuth], signedBy: root)
        let trust = ServerTrust(certificates: [clientOnly.certificate], anchors: [root.certificate], policy: .basicX509, verifyDate: clock)

        #expect(trust.evaluate().failures.isEmpty)
    }

    @Test func anIntermediateWithPathLengthZeroCannotHaveAnotherAuthorityBelowIt() throws {
        let root = try authority("Root")
        let intermediate = try authority("Intermediate", pathLength: 0, signedBy: root)
        let subordinate = try authority("Subordinate", signedBy: intermediate)
        let server = try leaf(signedBy: subordinate)
        let trust = ServerTrust(
            certificates: [server.certificate, subordinate.certificate, intermediate.certificate], anchors: [root.certificate],
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
            certificates: [server.certificate, subordinate.certificate, intermediate.certificate], anchors: [root.certificate],
            policy: .ssl(host: "bank.test"), verifyDate: clock)

        #expect(trust.evaluate().failures.isEmpty)
    }
}
