import Foundation
import LoopbackTLS
import PKI

/// What each real client the lab prints a command for will do in the lab's world, worked out, not
/// assumed: the chain it will be shown (the real one, or the forgery the proxy makes), checked by the
/// engine's `ServerTrust` (OpenSSL's `X509_verify_cert`, as curl, openssl and Python use it) against the
/// one file the command trusts, at the lab's clock, for the lesson's host.
///
/// The messages are what those clients print for each OpenSSL verdict (curl 7.x/8.x, OpenSSL 3, Python 3).
struct LabExpectations {
    enum Path { case throughAttacker, straightToTheBank }

    typealias Expectation = (words: String, outcome: Lab.Outcome)

    private let scenario: Scenario
    private let world: World
    private let forgery: [Certificate]
    private let clock: Date

    init(_ lab: Lab) {
        scenario = lab.scenario
        world = lab.world
        forgery = lab.forgery
        clock = lab.world.factory.now
    }

    private var host: String { scenario.server.host }
    /// Two-way TLS: the bank refuses the attacker, who has no client certificate to show it.
    private var bankRefusesAttacker: Bool { scenario.server.requireClientCertificate }

    private func chain(_ path: Path) -> [Certificate] { path == .throughAttacker ? forgery : world.server.chain }

    /// The verdict on `chain` for a client whose only anchor is `anchor`; `host` nil checks no name. Lab clients
    /// (curl, Python, openssl) have no validity maximum and no serverAuth requirement, so OpenSSL's rules are the
    /// model, its host check reading the common name when the SAN has no DNS name as `X509_check_host` does; the
    /// key-size and SHA-1 rules they do share (OpenSSL's security level 2) cannot arise from a scenario.
    private func verdict(_ chain: [Certificate], trusting anchor: Certificate, host: String?) -> TrustFailure? {
        ServerTrust(
            certificates: chain, deviceTrustStore: DeviceTrustStore(system: [anchor]), policy: .ssl(host: host), verifyDate: clock, platform: .openSSL
        )
        .evaluate().reason
    }

    // MARK: - Clients

    /// curl checks the chain in the handshake (no host name given to OpenSSL), then the host name, then the pin.
    func curl(_ path: Path, trusting anchor: Certificate?, pinning pinned: Certificate? = nil) -> Expectation {
        let chain = chain(path)
        if let anchor {
            if let failure = verdict(chain, trusting: anchor, host: nil) {
                return refused(60, "curl: (60) SSL certificate problem: \(Self.openSSLError(failure, in: chain).text)")
            }
            if verdict(chain, trusting: anchor, host: host) != nil {
                return refused(60, "curl: (60) SSL: no alternative certificate subject name matches target host name '\(host)'")
            }
        }
        if let pinned, pinned.publicKeyInfo != chain[0].publicKeyInfo {
            let note = anchor == nil ? "the pin holds even with -k" : "the pin holds though curl trusts the chain"
            return refused(90, "curl: (90) SSL: public key does not match pinned public key", note: note)
        }
        return reached(path, emptyReply: (52, "curl: (52) Empty reply from server"))
    }

    /// `openssl s_client -verify_return_error -verify_hostname`: OpenSSL checks chain and name together and
    /// aborts the handshake on the first error; with `</dev/null` it sends nothing once it is done.
    func opensslHandshake(trusting anchor: Certificate) -> Expectation {
        guard let failure = verdict(forgery, trusting: anchor, host: host) else {
            return (
                "accepted, exit 0: Verify return code: 0 (ok); s_client then sends nothing, so there is nothing to steal",
                Lab.Outcome(exitStatus: 0, output: "Verify return code: 0 (ok)", attackerReadsSecret: false)
            )
        }
        let error = Self.openSSLError(failure, in: forgery)
        return refused(1, "verify error:num=\(error.code):\(error.text)", note: "the handshake is aborted")
    }

    /// Python's `urllib` through the attacker; `anchor` nil is an unverified context (CERT_NONE, no host check).
    func python(trusting anchor: Certificate?) -> Expectation {
        if let anchor, let failure = verdict(forgery, trusting: anchor, host: host) {
            // Python words a name mismatch itself; every other error is OpenSSL's text.
            let text =
                if case .hostnameMismatch = failure.kind { "Hostname mismatch, certificate is not valid for '\(host)'." } else {
                    Self.openSSLError(failure, in: forgery).text
                }
            return refused(1, "urllib.error.URLError: <urlopen error [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: \(text)")
        }
        return reached(.throughAttacker, emptyReply: (1, "http.client.RemoteDisconnected: Remote end closed connection without response"))
    }

    // MARK: - Outcomes in words

    private func refused(_ status: Int32, _ message: String, note: String = "nothing stolen") -> Expectation {
        ("refused, exit \(status): \(message) (\(note))", Lab.Outcome(exitStatus: status, output: message, attackerReadsSecret: false))
    }

    /// The client trusted what it was shown and sent its request.
    private func reached(_ path: Path, emptyReply: (status: Int32, message: String)) -> Expectation {
        let loot = scenario.request.secret.isEmpty ? "the request" : "the password"
        if path == .throughAttacker, bankRefusesAttacker {
            return (
                "accepted, and the attacker's log shows \(loot); but the bank demands a client certificate the attacker "
                    + "does not have, so the attacker hangs up: exit \(emptyReply.status), \(emptyReply.message)",
                Lab.Outcome(exitStatus: emptyReply.status, output: emptyReply.message, attackerReadsSecret: !scenario.request.secret.isEmpty)
            )
        }
        let page = bankPage
        let shown = "accepted, exit 0: the bank's page (\"\(page.prefix { $0 != "." }). …\")"
        guard path == .throughAttacker else { return (shown, Lab.Outcome(exitStatus: 0, output: page, attackerReadsSecret: false)) }
        return (
            shown + ", relayed by the attacker, whose log shows \(loot)",
            Lab.Outcome(exitStatus: 0, output: page, attackerReadsSecret: !scenario.request.secret.isEmpty)
        )
    }

    /// The text of the page the bank answers the lesson's request with: what the client prints.
    private var bankPage: String {
        let request = HTTPMessage.request(
            scenario.request.method, scenario.request.path, host: host, body: Array(scenario.request.body.utf8),
            contentType: scenario.request.body.isEmpty ? nil : "application/x-www-form-urlencoded")
        let html = String(decoding: BankApp(host: host).respond(to: request).body, as: UTF8.self)
        guard let start = html.range(of: "<p>"), let end = html.range(of: "</p>", range: start.upperBound..<html.endIndex) else {
            return html.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return String(html[start.upperBound..<end.lowerBound])
    }

    /// OpenSSL's number and text for a failure (`X509_verify_cert_error_string`), as clients print them.
    static func openSSLError(_ failure: TrustFailure, in chain: [Certificate]) -> (code: Int32, text: String) {
        let atLeaf = failure.certificate == chain.first
        switch failure.kind {
        case .untrustedRoot: return atLeaf ? (18, "self-signed certificate") : (19, "self-signed certificate in certificate chain")
        case .missingIssuer: return atLeaf && chain.count == 1 ? (21, "unable to verify the first certificate") : (20, "unable to get local issuer certificate")
        case .expired: return (10, "certificate has expired")
        case .notYetValid: return (9, "certificate is not yet valid")
        case .hostnameMismatch: return (62, "hostname mismatch")
        case .badSignature: return (7, "certificate signature failure")
        case .wrongExtendedKeyUsage: return (26, "unsupported certificate purpose")
        case .pathLengthExceeded: return (25, "path length constraint exceeded")
        default: return failure.openSSLError
        }
    }
}
