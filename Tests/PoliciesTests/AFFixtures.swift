import Foundation
import PKI

/// Generated stand-ins for AFNetworking's `Tests/Resources`, valid at `AFFixtures.clock`.
///
/// AF's own fixtures expired (httpbin's leaf in 2021, the self-signed ones in 2024), so the shapes are
/// rebuilt here with fresh keys:
/// - HB: leaf `httpbin.org` ← `Test Server CA 1B` ← `Test Root CA 1` (cross-signed) ← `Test Services
///   Root G2` (cross-signed) → `Test Class 2 Root`, a device-trusted root the server does not send.
/// - ADN: an expired `*.app.net` leaf ← `Test HA CA-3` ← `Test HA EV Root` (device-trusted): another host.
/// - Three self-signed leaves without basicConstraints: "No Domains" (no SAN), "foobar.com" (CN only)
///   and "Alt Name" (SAN foobar.com).
struct AFFixtures: Sendable {
    static let shared = try! AFFixtures()
    static let clock = date("2026-06-01T00:00:00Z")

    let deviceTrustStore: [Certificate]
    let httpbinChain: [Certificate]
    let leaf: Certificate, serverCA: Certificate, rootCA1: Certificate, servicesRoot: Certificate
    /// `Test Root CA 1` as its self-signed original: same subject and key, other bytes.
    let rootCA1SelfSigned: Certificate
    let adnChain: [Certificate]
    let noDomains: Certificate, foobarCommonNameOnly: Certificate, altName: Certificate

    init() throws {
        let factory = CertificateFactory(now: Self.clock)
        let start = Self.date("2026-01-01T00:00:00Z")
        let end = Self.date("2027-01-01T00:00:00Z")
        func authority(_ name: String, pathLength: Int? = nil) -> CertificateSpec {
            .authority(label: name, commonName: name, pathLength: pathLength, notBefore: start, notAfter: end)
        }

        let class2Root = try factory.makeIdentity(authority("Test Class 2 Root"))
        let servicesRoot = try factory.makeIdentity(authority("Test Services Root G2"), signedBy: class2Root)
        let rootCA1Key = try PrivateKey.generate()
        let rootCA1 = Identity(
            certificate: try factory.issue(authority("Test Root CA 1"), key: rootCA1Key, signedBy: servicesRoot), privateKey: rootCA1Key)
        rootCA1SelfSigned = try factory.issue(authority("Test Root CA 1"), key: rootCA1Key)
        let serverCA = try factory.makeIdentity(authority("Test Server CA 1B", pathLength: 0), signedBy: rootCA1)
        let leaf = try factory.makeIdentity(
            .serverLeaf(label: "httpbin.org", dnsNames: ["httpbin.org", "*.httpbin.org"], notBefore: start, notAfter: end),
            signedBy: serverCA)
        (self.leaf, self.serverCA, self.rootCA1, self.servicesRoot) =
            (leaf.certificate, serverCA.certificate, rootCA1.certificate, servicesRoot.certificate)
        httpbinChain = [leaf.certificate, serverCA.certificate, rootCA1.certificate, servicesRoot.certificate]

        let adnRoot = try factory.makeIdentity(authority("Test HA EV Root"))
        let adnCA = try factory.makeIdentity(authority("Test HA CA-3", pathLength: 0), signedBy: adnRoot)
        let adnLeaf = try factory.makeIdentity(
            .serverLeaf(
                label: "*.app.net", dnsNames: ["*.app.net", "app.net"],
                notBefore: Self.date("2025-01-01T00:00:00Z"), notAfter: Self.date("2025-08-13T00:00:00Z")),
            signedBy: adnCA)
        adnChain = [adnLeaf.certificate, adnCA.certificate, adnRoot.certificate]
        deviceTrustStore = [class2Root.certificate, adnRoot.certificate]

        func selfSigned(_ label: String, commonName: String, dnsNames: [String]) throws -> Certificate {
            try factory.makeIdentity(
                CertificateSpec(
                    label: label, subject: DistinguishedName(commonName: commonName), dnsNames: dnsNames,
                    notBefore: start, notAfter: end, keyUsage: [.digitalSignature], extendedKeyUsage: [.serverAuth])
            ).certificate
        }
        noDomains = try selfSigned("No Domains", commonName: "No Domains", dnsNames: [])
        foobarCommonNameOnly = try selfSigned("foobar.com", commonName: "foobar.com", dnsNames: [])
        altName = try selfSigned("Alt Name", commonName: "Alt Name", dnsNames: ["foobar.com"])
    }

    /// A server trust as AF's tests make one: the given chain, BasicX509, judged at the fixture clock.
    func trust(_ chain: [Certificate]) -> ServerTrust {
        ServerTrust(certificates: chain, deviceTrustStore: DeviceTrustStore(system: deviceTrustStore), policy: .basicX509, verifyDate: Self.clock)
    }

    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
}
