import Foundation
import PKI
import Testing

/// Once anchors are set (a pinned certificate), the path ends at the first anchor met from the leaf up,
/// as SecTrust's does: what lies above a pinned certificate is not checked.
struct PinnedAnchorPathTests {
    let start = clock.addingTimeInterval(-86_400), end = clock.addingTimeInterval(365 * 86_400)

    func authority(_ name: String, pathLength: Int? = nil, notAfter: Date? = nil, signedBy issuer: Identity? = nil) throws -> Identity {
        try factory.makeIdentity(
            .authority(label: name, commonName: name, pathLength: pathLength, notBefore: start, notAfter: notAfter ?? end), signedBy: issuer)
    }

    func leaf(signedBy issuer: Identity) throws -> Identity {
        try factory.makeIdentity(.serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: end), signedBy: issuer)
    }

    func pinned(_ chain: [Certificate], to pins: [Certificate]) -> ServerTrust {
        var trust = ServerTrust(certificates: chain, deviceTrustStore: DeviceTrustStore(system: []), policy: .ssl(host: "bank.test"), verifyDate: clock)
        trust.setAnchorCertificates(pins)
        return trust
    }

    @Test func aPinnedLeafEndsThePathSoAnExpiredIntermediateAboveItIsNotChecked() throws {
        let root = try authority("Root")
        let expired = try authority("Expired Intermediate", notAfter: clock.addingTimeInterval(-3_600), signedBy: root)
        let server = try leaf(signedBy: expired)

        let result = pinned([server.certificate, expired.certificate, root.certificate], to: [server.certificate]).evaluate()

        #expect(result.failures.isEmpty, "\(result.failures)")
        #expect(result.path == [server.certificate])
    }

    @Test func aPinnedLeafEndsThePathSoAPathLengthViolationAboveItIsNotChecked() throws {
        let root = try authority("Root", pathLength: 0)
        let intermediate = try authority("Intermediate", signedBy: root)
        let subordinate = try authority("Subordinate", signedBy: intermediate)
        let server = try leaf(signedBy: subordinate)
        let chain = [server.certificate, subordinate.certificate, intermediate.certificate, root.certificate]

        let result = pinned(chain, to: [server.certificate, root.certificate]).evaluate()

        #expect(result.failures.isEmpty, "\(result.failures)")
        #expect(result.path == [server.certificate])
    }

    @Test func aPinnedLeafIsStillCheckedItselfForItsDatesAndHost() throws {
        let root = try authority("Root")
        let expiredLeaf = try factory.makeIdentity(
            .serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: clock.addingTimeInterval(-3_600)), signedBy: root)
        var trust = pinned([expiredLeaf.certificate, root.certificate], to: [expiredLeaf.certificate])
        trust.policy = .ssl(host: "other.test")

        let result = trust.evaluate()

        #expect(Set(result.failures.map(\.kind.code)) == ["expired", "hostnameMismatch"], "\(result.failures)")
        #expect(result.path == [expiredLeaf.certificate])
    }

    @Test func aPinnedIntermediateEndsThePathSoAnExpiredRootAboveItIsNotChecked() throws {
        let root = try authority("Root", notAfter: clock.addingTimeInterval(-3_600))
        let intermediate = try authority("Intermediate", signedBy: root)
        let server = try leaf(signedBy: intermediate)

        let result = pinned([server.certificate, intermediate.certificate, root.certificate], to: [intermediate.certificate]).evaluate()

        #expect(result.failures.isEmpty, "\(result.failures)")
        #expect(result.path == [server.certificate, intermediate.certificate])
    }
}
