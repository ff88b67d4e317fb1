import Foundation
import PKI
import Policies

/// The chains the Alamofire tests present, around `BankWorld`'s bank: what each attack of the matrix shows the app.
struct AlamofireWorld: Sendable {
    static let shared = try! AlamofireWorld()
    let bank = BankWorld.shared
    /// A second `bank.test` leaf the bank's own intermediate issued to someone else: a CA pin's mis-issuance.
    let misIssued: Certificate
    /// The bank's key in a certificate that expired before the clock.
    let expiredLeaf: Certificate
    /// A valid leaf from the bank's intermediate for another host.
    let otherHost: Certificate
    /// A self-signed `bank.test` leaf, the kind `acceptSelfSignedCertificates` is for.
    let selfSigned: Certificate

    init() throws {
        let factory = bank.factory
        let start = AFFixtures.date("2026-01-01T00:00:00Z")
        let end = AFFixtures.date("2027-01-01T00:00:00Z")
        misIssued = try factory.makeIdentity(
            .serverLeaf(label: "mis-issued bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: end), signedBy: bank.intermediate
        ).certificate
        expiredLeaf = try factory.issue(
            .serverLeaf(
                label: "expired bank.test", dnsNames: ["bank.test"], notBefore: AFFixtures.date("2024-01-01T00:00:00Z"),
                notAfter: AFFixtures.date("2025-01-01T00:00:00Z")),
            key: bank.leaf.privateKey, signedBy: bank.intermediate)
        otherHost = try factory.makeIdentity(
            .serverLeaf(label: "elsewhere.test", dnsNames: ["elsewhere.test"], notBefore: start, notAfter: end), signedBy: bank.intermediate
        ).certificate
        selfSigned = try factory.makeIdentity(
            CertificateSpec(
                label: "self-signed bank.test", subject: DistinguishedName(commonName: "bank.test"), dnsNames: ["bank.test"], notBefore: start,
                notAfter: end, keyUsage: [.digitalSignature], extendedKeyUsage: [.serverAuth])
        ).certificate
    }

    /// What the server presents, leaf first.
    enum Chain: String, Sendable {
        /// The bank's real chain.
        case real
        /// A forgery from the attacker's CA, which the device does not trust.
        case forged
        /// The same forgery, with the attacker's CA installed and fully trusted by the user.
        case forgedUserCA
        /// The forgery with the bank's real (pinned) leaf appended, attacker's CA installed: CVE-2016-2402's trick.
        case appendedPinned
        /// The same, with the attacker's CA untrusted.
        case appendedPinnedUntrusted
        /// The mis-issued leaf from the bank's own intermediate.
        case misIssued
        /// The bank's key in an expired leaf.
        case expired
        /// A valid chain for `elsewhere.test`.
        case wrongHost
        case selfSigned
    }

    /// A pinned certificate (or the certificate whose key is pinned).
    enum Pin: String, Sendable {
        case leaf, intermediate, root, selfSigned
    }

    func certificates(_ chain: Chain) -> [Certificate] {
        switch chain {
        case .real: bank.realChain
        case .forged, .forgedUserCA: bank.forgedChain
        case .appendedPinned, .appendedPinnedUntrusted: bank.forgedChain + [bank.leaf.certificate]
        case .misIssued: [misIssued, bank.intermediate.certificate]
        case .expired: [expiredLeaf, bank.intermediate.certificate]
        case .wrongHost: [otherHost, bank.intermediate.certificate]
        case .selfSigned: [selfSigned]
        }
    }

    func certificate(_ pin: Pin) -> Certificate {
        switch pin {
        case .leaf: bank.leaf.certificate
        case .intermediate: bank.intermediate.certificate
        case .root: bank.root.certificate
        case .selfSigned: selfSigned
        }
    }

    func pins(_ pins: [Pin]) -> [Certificate] { pins.map(certificate) }

    /// The connection as the challenge hands it over: SSL policy for the host, the device's trust store.
    func connection(_ chain: Chain, host: String = "bank.test") -> PresentedConnection {
        var trust = bank.trust(certificates(chain), attackerInstalled: chain == .forgedUserCA || chain == .appendedPinned)
        trust.policy = .ssl(host: host)
        return PresentedConnection(serverTrust: trust, negotiated: AppTransportSecurityTests.tls13, host: host, domain: host)
    }
}
