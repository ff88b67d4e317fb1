import Foundation
import PKI

/// A small world for the lessons AF's own tests do not cover: a bank, its CA, and an attacker.
///
/// `bank.test` ← `Bank Intermediate` ← `Bank Root` (device-trusted); `Attacker CA` signs forgeries and
/// is trusted only where a test says the user installed it.
struct BankWorld: Sendable {
    static let shared = try! BankWorld()
    static let clock = AFFixtures.clock

    let factory = CertificateFactory(now: clock)
    let root: Identity, intermediate: Identity, leaf: Identity, attackerCA: Identity
    let forged: Identity

    init() throws {
        let start = AFFixtures.date("2026-01-01T00:00:00Z")
        let end = AFFixtures.date("2027-01-01T00:00:00Z")
        root = try factory.makeIdentity(.authority(label: "Bank Root", commonName: "Bank Root", notBefore: start, notAfter: end))
        intermediate = try factory.makeIdentity(
            .authority(label: "Bank Intermediate", commonName: "Bank Intermediate", pathLength: 0, notBefore: start, notAfter: end),
            signedBy: root)
        leaf = try factory.makeIdentity(
            .serverLeaf(label: "bank.test", organization: "Example Bank", dnsNames: ["bank.test", "www.bank.test"], notBefore: start, notAfter: end),
            signedBy: intermediate)
        attackerCA = try factory.makeIdentity(.authority(label: "Attacker CA", commonName: "Attacker CA", notBefore: start, notAfter: end))
        forged = try factory.forge(impersonating: leaf.certificate, signedBy: attackerCA)
    }

    var realChain: [Certificate] { [leaf.certificate, intermediate.certificate] }
    var forgedChain: [Certificate] { [forged.certificate, attackerCA.certificate] }

    /// The device trust store: the bank's root, plus the attacker's CA when the user was tricked into it.
    func trust(_ chain: [Certificate], attackerInstalled: Bool = false) -> ServerTrust {
        let store = DeviceTrustStore(system: [root.certificate], userInstalled: attackerInstalled ? [attackerCA.certificate] : [])
        return ServerTrust(certificates: chain, deviceTrustStore: store, verifyDate: Self.clock)
    }
}
