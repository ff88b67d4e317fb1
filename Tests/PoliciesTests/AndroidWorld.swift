import Foundation
import PKI
import Policies

/// BankWorld's bank and attacker, plus the certificates the Android lessons need: a second leaf the bank's
/// intermediate mis-issued to the attacker, an expired bank leaf, and a leaf that names its host only in the CN.
struct AndroidWorld: Sendable {
    static let shared = try! AndroidWorld()
    static let tls13 = NegotiatedTLS(version: .tls13, cipherSuite: "TLS_AES_128_GCM_SHA256")

    let bank = BankWorld.shared
    let misissued: Identity, expired: Identity, commonNameOnly: Identity

    init() throws {
        let bank = BankWorld.shared
        let start = AFFixtures.date("2026-01-01T00:00:00Z")
        misissued = try bank.factory.makeIdentity(
            .serverLeaf(
                label: "mis-issued bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: AFFixtures.date("2027-01-01T00:00:00Z")),
            signedBy: bank.intermediate)
        expired = try bank.factory.makeIdentity(
            .serverLeaf(label: "expired bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: AFFixtures.date("2026-03-01T00:00:00Z")),
            signedBy: bank.intermediate)
        commonNameOnly = try bank.factory.makeIdentity(
            CertificateSpec(
                label: "CN-only bank.test", subject: DistinguishedName(commonName: "bank.test"), notBefore: start,
                notAfter: AFFixtures.date("2027-01-01T00:00:00Z"), basicConstraints: .endEntity, keyUsage: [.digitalSignature],
                extendedKeyUsage: [.serverAuth]),
            signedBy: bank.intermediate)
    }

    var leaf: Certificate { bank.leaf.certificate }
    var root: Certificate { bank.root.certificate }
    var attackerCA: Certificate { bank.attackerCA.certificate }
    var realChain: [Certificate] { bank.realChain }
    var forgedChain: [Certificate] { bank.forgedChain }
    /// CVE-2016-2402: the forged chain with the bank's real (public) leaf appended.
    var appendedPinChain: [Certificate] { bank.forgedChain + [leaf] }

    /// The chain on the wire, against a device with the bank's root built in (and the attacker's CA when the user added it).
    func connection(_ chain: [Certificate], host: String = "bank.test", attackerInstalled: Bool = false) -> PresentedConnection {
        PresentedConnection(serverTrust: bank.trust(chain, attackerInstalled: attackerInstalled), negotiated: Self.tls13, host: host, domain: host)
    }
}
