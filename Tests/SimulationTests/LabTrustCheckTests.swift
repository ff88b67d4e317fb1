import Foundation
import LoopbackTLS
import Simulation
import TestSupport
import Testing

/// The trust check, met by real curl: a device that trusts the lab's CA gets the page and the log says it does;
/// one that does not aborts the handshake and the log says it does not trust it yet. On 127.0.0.2, as `--listen`
/// would put it on a LAN address, and on 127.0.0.1 by default.
@Suite(.serialized) struct LabTrustCheckTests {
    func withLab(address: ListenAddress = LabNetworkTests.address, _ body: (Lab, String) throws -> Void) throws {
        let scenario = try ScenarioLoader.load("\(CatalogTests.scenarios)/03-installed-attacker-ca.yaml")
        let directory = NSTemporaryDirectory() + "mitmsim-lab-trust-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lab = try Lab(scenario, directory: directory, address: address) { _ in }
        defer { lab.stop() }
        try body(lab, directory)
    }

    /// The trust check's log line, once the connection has ended.
    func logged(_ lab: Lab) -> String? {
        for _ in 0..<100 where !lab.flows.contains(where: { $0.connection.hasPrefix("trust check") }) { usleep(20_000) }
        return lab.flows.first { $0.connection.hasPrefix("trust check") }?.description
    }

    @Test func aClientTrustingTheLabsCAGetsThePageAndTheLogSaysTheDeviceTrustsIt() throws {
        try withLab { lab, directory in
            #expect(lab.trustCheckURL.hasPrefix("https://127.0.0.2:"))
            let run = try Subprocess.run("/usr/bin/curl", ["-sS", "--cacert", directory + "/lab-attacker-ca.pem", lab.trustCheckURL])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("<h1>This device trusts the lab's CA</h1>"), "\(run.output)")
            let line = try #require(logged(lab))
            #expect(
                line.hasPrefix(
                    "trust check #1: this device TRUSTS the lab's CA: it accepted 'lab-trust-check' -> 'lab-attacker-ca' and asked for the page "
                        + "[User-Agent 'curl/"), "\(line)")
        }
    }

    @Test func aClientWithoutTheLabsCAAbortsTheHandshakeAndTheLogSaysTheDeviceDoesNotTrustItYet() throws {
        try withLab { lab, _ in
            let run = try Subprocess.run("/usr/bin/curl", ["-sS", lab.trustCheckURL])
            #expect(run.status == 60, "\(run.output)")
            #expect(!run.output.contains("This device trusts"))
            let line = try #require(logged(lab))
            #expect(
                line == "trust check #1: this device does NOT trust the lab's CA yet: it refused 'lab-trust-check' -> 'lab-attacker-ca' with alert unknown_ca",
                "\(line)")
        }
    }

    /// A connection that ends before the certificate was sent (a port scan, a browser's unused preconnection)
    /// says nothing about trust, so the log does not say the device refused the CA.
    @Test func aConnectionClosedBeforeTheCertificateIsNotLoggedAsADeviceThatDoesNotTrust() throws {
        try withLab(address: .loopback) { lab, _ in
            let port = try #require(UInt16(lab.trustCheckURL.split(separator: ":").last?.filter(\.isNumber) ?? ""))
            try RawConnection(port: port).close()
            usleep(100_000)  // its handshake has ended before curl's starts
            let run = try Subprocess.run("/usr/bin/curl", ["-sS", lab.trustCheckURL])
            #expect(run.status == 60, "\(run.output)")
            let line = try #require(logged(lab))
            #expect(line.hasPrefix("trust check #1: this device does NOT trust"), "only curl's refusal is logged: \(line)")
            #expect(lab.flows.filter { $0.connection.hasPrefix("trust check") }.count == 1)
        }
    }

    @Test func theTrustCheckIsOnLoopbackByDefault() throws {
        try withLab(address: .loopback) { lab, directory in
            #expect(lab.trustCheckURL.hasPrefix("https://127.0.0.1:"))
            let run = try Subprocess.run("/usr/bin/curl", ["-sS", "--cacert", directory + "/lab-attacker-ca.pem", lab.trustCheckURL])
            #expect(run.status == 0 && run.output.contains("This device trusts the lab's CA"), "\(run.output)")
        }
    }

    @Test func theProfilePageGivesEachSystemsStepsAndLinksTheTrustCheck() throws {
        try withLab { lab, _ in
            let page = try Subprocess.run("/usr/bin/curl", ["-sS", "http://\(lab.address):\(lab.proxyPort)/"]).output
            for step in [
                "<h3>iPhone, iPad</h3>", "Certificate Trust Settings: switch on full trust for 'mitmsim lab attacker CA'. This is the step most people miss",
                "<h3>Android</h3>", "Since Android 7, apps trust user CAs only when they opt in, so most apps ignore it", "<h3>Mac</h3>",
                "Always Trust", "<h3>Firefox (any system)</h3>", "Trust this CA to identify websites", "<a href=\"\(lab.trustCheckURL)\">",
            ] {
                #expect(page.contains(step), "\(step)")
            }
            // The name the page tells a device to look for is the one the certificate carries.
            let subject = try Subprocess.run("/usr/bin/openssl", ["x509", "-noout", "-subject"], input: Array(try lab.attackerCA.pemEncoded()))
            #expect(subject.output.contains("CN = mitmsim lab attacker CA"), "\(subject.output)")
        }
    }
}
