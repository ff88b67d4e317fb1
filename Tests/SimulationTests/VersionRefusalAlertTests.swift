import Foundation
import LoopbackTLS
import Policies
import Testing

@testable import Simulation

/// A client that refuses the TLS version the ServerHello chose ends the handshake as a real client below its floor
/// does, with a fatal `protocol_version` alert (70), which the bank's OpenSSL receives; a refused chain still gets
/// `bad_certificate`. Run for real on loopback against lesson 36's TLS 1.0 bank.
struct VersionRefusalAlertTests {
    /// Lesson 36 (a bank that speaks only TLS 1.0) with `library` as the app's client.
    static func lesson36(_ library: String) throws -> RunReport {
        var text = try String(contentsOfFile: "\(CatalogTests.scenarios)/36-tls10-server-refused-by-ats.yaml", encoding: .utf8)
        if library != "afnetworking-4" {
            let start = try #require(text.range(of: "\nclient:\n"))
            let end = try #require(text.range(of: "\nexpect:\n"))
            text.replaceSubrange(start.lowerBound..<end.lowerBound, with: "\nclient:\n  library: \(library)\n  policy: {}")
            text = text.replacingOccurrences(of: "  decidingCheck: atsTLSVersion\n", with: "")
        }
        return try ScenarioRunner.run(ScenarioLoader.decode(Data(text.utf8), file: "36.yaml", id: "36"))
    }

    /// The alerts `actor` sent, by name.
    static func alerts(sentBy actor: NetworkEvent.Actor, in report: RunReport) -> [String] {
        report.events.compactMap { event in
            guard event.actor == actor, case .alert(_, let name, _) = event.kind else { return nil }
            return name
        }
    }

    @Test("A client that refuses TLS 1.0 sends protocol_version, and the bank receives it", arguments: ["afnetworking-4", "okhttp", "curl"])
    func aVersionRefusalSendsProtocolVersion(_ library: String) throws {
        let report = try Self.lesson36(library)
        #expect(!report.trusted)
        #expect(Self.alerts(sentBy: .client, in: report) == ["protocol_version"])
        #expect(
            report.events.contains { event in
                guard event.actor == .origin, case .handshakeFailed(let reason) = event.kind else { return false }
                return reason == "the peer sent alert protocol_version"
            })
        #expect(!report.serverReceivedRequest)
    }

    @Test("A refused chain still ends the handshake with bad_certificate")
    func aChainRefusalSendsBadCertificate() throws {
        let report = try ScenarioRunner.run(ScenarioLoader.load("\(CatalogTests.scenarios)/33-self-signed-recipe-without-ats-exception.yaml"))
        #expect(!report.trusted)
        #expect(Self.alerts(sentBy: .client, in: report) == ["bad_certificate"])
    }
}
