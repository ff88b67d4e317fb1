import Foundation
import LoopbackTLS
import PKI

/// The lab's trust check: an HTTPS page on a port of its own, presenting a certificate the lab's attacker CA
/// issued for the lab's address. A device that opens it and gets the page accepted that certificate, so it
/// trusts the CA; a device that ends the handshake does not trust it yet. Each connection's outcome goes to
/// the lab's log as a flow (`Lab.Flow.Outcome.trustCheck`), so the teacher sees which devices are ready.
final class LabTrustCheck: Sendable {
    /// The id of its certificate, in the log's chains.
    static let leafID = "lab-trust-check"

    private let server: OriginServer
    let address: ListenAddress

    /// Starts listening on `address` (a free port), presenting a leaf for that address signed by `authority`.
    /// Takes connections within the lab's caps (`Lab.limits`); `onNotice` hears what they refuse.
    init(
        authority: Identity, factory: CertificateFactory, address: ListenAddress, onNotice: @escaping @Sendable (ListenerNotice) -> Void,
        onCheck: @escaping @Sendable (Lab.Flow) -> Void
    ) throws {
        let validity = World.defaultValidity(at: factory.now)
        let leaf = try factory.makeIdentity(
            .serverLeaf(
                label: Self.leafID, commonName: "mitmsim lab trust check", dnsNames: [], ipAddresses: ["\(address)"],
                notBefore: validity.notBefore, notAfter: validity.notAfter),
            signedBy: authority)
        let chain = [Self.leafID, authority.certificate.label]
        let checks = Locked(0)
        let log = { @Sendable (trusted: Bool, userAgent: String?, alert: String?) in
            let number = checks.withLock { count in
                count += 1
                return count
            }
            onCheck(Lab.Flow(trustCheck: number, presentedChain: chain, trusted: trusted, userAgent: userAgent, alert: alert))
        }
        var configuration = OriginServer.Configuration(
            application: Page(authority: authority.certificate.label, address: address) { log(true, $0, nil) }, identity: leaf,
            chain: [leaf.certificate, authority.certificate], closesAfterResponse: true, keptRequests: 0)
        configuration.onHandshakeRefused = { log(false, nil, $0) }
        server = try OriginServer(configuration, log: EventLog(keepsEvents: false), address: address, limits: Lab.limits(exempting: nil), onNotice: onNotice)
        self.address = address
    }

    var port: UInt16 { server.port }
    /// "https://127.0.0.1:PORT/": what a device opens.
    var url: String { "https://\(address):\(port)/" }

    func stop() { server.stop() }

    /// The page a device that trusts the CA gets; only `/` counts as a check (a browser also asks for its icon).
    private struct Page: HTTPApplication {
        let authority: String
        let address: ListenAddress
        let onTrusted: @Sendable (_ userAgent: String?) -> Void

        func respond(to request: HTTPMessage) -> HTTPMessage {
            guard request.requestTarget?.path == "/" else {
                return .response(404, "Not Found", body: Array("Nothing here. The trust check is at /.\n".utf8), contentType: "text/plain")
            }
            onTrusted(request.header("User-Agent"))
            return .response(200, "OK", body: Array(page.utf8))
        }

        private var page: String {
            """
            <html><head><title>Trust check</title><meta name="viewport" content="width=device-width"></head><body>
            <h1>This device trusts the lab's CA</h1>
            <p>The client that opened this page (this browser, or the program you ran) accepted a certificate for \
            \(address) that '\(authority.markupEscaped)', the mitmsim classroom lab's attacker CA, issued: so it \
            trusts that CA, and the lab's attacker can impersonate any website to it. The teacher's screen says so \
            too. (Unless you clicked through a certificate warning to get here: that makes an exception for this \
            page only, and proves nothing.) Remove the CA after the class.</p>
            </body></html>

            """
        }
    }
}
