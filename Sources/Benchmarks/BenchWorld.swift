import LoopbackTLS
import PKI
import Simulation

/// The bank chain the benchmarks work on: root ← intermediate ← bank.test, plus an attacker CA.
struct BenchWorld {
    let factory = CertificateFactory()
    let root: Identity, intermediate: Identity, leaf: Identity, attacker: Identity
    let leafSpec: CertificateSpec

    init() throws {
        let now = factory.now
        let start = now.addingTimeInterval(-86_400)
        let end = now.addingTimeInterval(365 * 86_400)
        root = try factory.makeIdentity(.authority(label: "Bank Root", commonName: "Bank Root", notBefore: start, notAfter: end))
        intermediate = try factory.makeIdentity(
            .authority(label: "Bank Intermediate", commonName: "Bank Intermediate", pathLength: 0, notBefore: start, notAfter: end), signedBy: root)
        leafSpec = .serverLeaf(
            label: "bank.test", organization: "Example Bank", dnsNames: ["bank.test", "www.bank.test", "api.bank.test"],
            notBefore: start, notAfter: end)
        leaf = try factory.makeIdentity(leafSpec, signedBy: intermediate)
        attacker = try factory.makeIdentity(.authority(label: "Attacker CA", commonName: "Attacker CA", notBefore: start, notAfter: end))
    }

    /// The bank's origin; with tickets, as the anchor figures of sslsplit and mitmdump were measured.
    func origin(sessionTickets: Int = 0) -> OriginServer.Configuration {
        OriginServer.Configuration(
            application: BankApp(host: "bank.test"), identity: leaf, chain: [leaf.certificate, intermediate.certificate], sessionTickets: sessionTickets)
    }

    /// The bank's chain as the client receives it, anchored at the bank's root.
    func trust() -> ServerTrust {
        ServerTrust(
            certificates: [leaf.certificate, intermediate.certificate], deviceTrustStore: DeviceTrustStore(system: [root.certificate]), verifyDate: factory.now)
    }
}
