import Foundation
import LoopbackTLS
import Simulation
import TestSupport
import Testing

/// The classroom lab against real clients: the commands it prints, run as printed by curl, openssl and
/// Python (CI installs them). Every client process is waited for; the lab is stopped at the end.
@Suite(.serialized) struct LabTests {
    /// A lab on the first lesson `matching` (by default: one with a forging attacker).
    func withLab(matching: @escaping (Scenario) -> Bool = { $0.attacker.attack == .forge }, _ body: (Lab) throws -> Void) throws {
        let scenario = try #require(
            Lessons.all.first(where: matching))
        let directory = NSTemporaryDirectory() + "mitmsim-lab-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lab = try Lab(scenario, directory: directory) { _ in }
        defer { lab.stop() }
        try body(lab)
    }

    func command(_ lab: Lab, _ title: String) throws -> String {
        try #require(lab.commands.first { $0.title.hasPrefix(title) }, "no command '\(title)'").line
    }

    /// The lab logs a connection when it ends, a moment after the client exits.
    func eventually(_ lab: Lab, contains text: String) -> Bool {
        let found = { lab.flows.contains { $0.description.contains(text) } }
        for _ in 0..<100 where !found() { usleep(20_000) }
        return found()
    }

    /// `GET /bytes/N` is made while it is sent: 32 MiB through the lab's attacker costs the process a few pieces of
    /// 64 KiB, not the body held whole (and its copy as sent), as it once did. Measured as the peak of resident
    /// memory (VmHWM, reset first) over what was resident before; other suites run meanwhile, so the bound is generous.
    @Test func aLongDownloadThroughTheAttackerCostsTheLabFarLessMemoryThanItsSize() throws {
        try withLab { lab in
            let size = 32 << 20
            try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
            let before = try Self.residentKiB("VmRSS")
            let tally = try LoadClient.run(
                port: lab.proxyPort, host: lab.scenario.server.host, path: "/bytes/\(size)", connections: 1, seconds: 120)
            let peak = try Self.residentKiB("VmHWM")
            #expect(tally.connections == 1 && tally.failures == 0)
            #expect((peak - before) << 10 < size / 3, "grew by \(peak - before) KiB for \(size >> 10) KiB")
        }
    }

    /// A line of /proc/self/status, in KiB.
    static func residentKiB(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
    }

    @Test func curlTrustingTheRealRootRefusesTheAttackerWithExit60AndTheBankGetsNothing() throws {
        try withLab { lab in
            let outcome = try Subprocess.paste(command(lab, "curl through the attacker, trusting only the real root"))
            #expect(outcome.status == 60, "\(outcome.output)")
            #expect(eventually(lab, contains: "the client REFUSED it"))
            #expect(lab.requestsReceived.isEmpty)
        }
    }

    @Test func curlDashKHandsThePasswordToTheAttacker() throws {
        try withLab { lab in
            let outcome = try Subprocess.paste(command(lab, "curl -k through the attacker"))
            #expect(outcome.status == 0)
            #expect(outcome.output.contains("Welcome back, alice"))
            #expect(eventually(lab, contains: "STOLEN password 'hunter2'"))
        }
    }

    @Test func aBodyWithQuotesAndCommandSubstitutionIsSentAsWrittenAndRunsNothing() throws {
        let marker = NSTemporaryDirectory() + "mitmsim-lab-ran-\(UUID().uuidString)"
        var scenario = try ScenarioLoader.load("\(CatalogTests.scenarios)/02-forged-untrusted-ca.yaml")
        let password = "it's $(touch \(marker))`touch \(marker)`"
        scenario.request.body = "username=alice&password=" + password
        scenario.request.secret = password
        let directory = NSTemporaryDirectory() + "mitmsim-lab it's \(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lab = try Lab(scenario, directory: directory) { _ in }
        defer { lab.stop() }

        for title in ["curl -k through the attacker", "Python urllib with CERT_NONE"] {
            let outcome = try Subprocess.paste(command(lab, title))
            #expect(outcome.status == 0, "\(title): \(outcome.output)")
        }
        #expect(eventually(lab, contains: "STOLEN password '\(password)'"))
        #expect(lab.flows.filter { $0.stolenSecret == password }.count == 2, "\(lab.flows.map(\.description))")
        #expect(!FileManager.default.fileExists(atPath: marker), "a printed command ran what the lesson's body says")
    }

    @Test func curlDashKWithThePinnedKeyStillRefusesWithExit90() throws {
        try withLab { lab in
            let outcome = try Subprocess.paste(command(lab, "curl -k with the real leaf's key pinned"))
            #expect(outcome.status == 90, "\(outcome.output)")
            #expect(lab.requestsReceived.isEmpty)
        }
    }

    @Test func curlStraightToTheBankIsAccepted() throws {
        try withLab { lab in
            let outcome = try Subprocess.paste(command(lab, "curl straight to the bank"))
            #expect(outcome.status == 0, "\(outcome.output)")
            #expect(lab.requestsReceived == ["POST /login"])
        }
    }

    @Test func opensslReportsTheVerifyErrorForTheAttackersChain() throws {
        try withLab { lab in
            let refused = try Subprocess.paste(command(lab, "openssl s_client against the attacker, trusting only the real root"))
            #expect(refused.status != 0)
            #expect(refused.output.contains("self-signed certificate in certificate chain"), "\(refused.output)")
            let installed = try Subprocess.paste(command(lab, "openssl s_client trusting the attacker's CA"))
            #expect(installed.output.contains("Verify return code: 0 (ok)"), "\(installed.output)")
        }
    }

    @Test func pythonTrustingTheRealRootRaisesAVerificationError() throws {
        try withLab { lab in
            let refused = try Subprocess.paste(command(lab, "Python urllib through the attacker, trusting only the real root"))
            #expect(refused.status != 0)
            #expect(refused.output.contains("CERTIFICATE_VERIFY_FAILED"), "\(refused.output)")
            let careless = try Subprocess.paste(command(lab, "Python urllib with CERT_NONE"))
            #expect(careless.output.contains("Welcome back, alice"))
            #expect(eventually(lab, contains: "STOLEN password 'hunter2'"))
        }
    }

    @Test func onATwoWayTLSBankThePrintedCommandsPresentTheAppsCertificate() throws {
        try withLab(
            matching: { $0.server.requireClientCertificate && $0.attacker.attack == .none },
            { lab in
                let direct = try Subprocess.paste(command(lab, "curl straight to the bank"))
                #expect(direct.status == 0, "\(direct.output)")
                #expect(lab.requestsReceived == ["POST /login"])

                let careless = try Subprocess.paste(command(lab, "curl -k through the attacker"))
                #expect(careless.status != 0, "the proxy has no client key, so the bank refuses it")
                #expect(eventually(lab, contains: "STOLEN password 'hunter2'"))
                #expect(eventually(lab, contains: "upstream failed"))
                #expect(lab.requestsReceived == ["POST /login"], "only the direct request reached the bank")
            })
    }

    @Test func inAWorldWithoutAnAttackerCATheLabForgesWithItsOwnCAAndTellsToTrustThatOne() throws {
        try withLab(
            matching: { $0.server.requireClientCertificate && $0.attacker.attack == .none },
            { lab in
                let installed = try command(lab, "openssl s_client trusting the attacker's CA")
                #expect(installed.contains("-CAfile \(lab.directory)/\(Lab.attackerCAID).pem"))
                #expect(!installed.contains("bank-client-ca"))
                let outcome = try Subprocess.paste(installed)
                #expect(outcome.output.contains("Verify return code: 0 (ok)"), "\(outcome.output)")
                #expect(eventually(lab, contains: "'forged bank-leaf' -> '\(Lab.attackerCAID)'"))
            })
    }

    @Test func commandThreeSaysWhatDashKMeansAndThatCurlPinsOnlyTheLeafsKey() throws {
        try withLab { lab in
            let pinned = try #require(lab.commands.first { $0.title.hasPrefix("curl -k with the real leaf's key pinned") })
            #expect(pinned.policy.contains("allowInvalidCertificates YES"))
            #expect(pinned.policy.contains("the leaf's key only"))
        }
    }

    @Test func pythonsRefusalIsPrintedAsTheURLErrorTheLearnerSees() throws {
        try withLab { lab in
            let python = try #require(lab.commands.first { $0.title.hasPrefix("Python urllib through the attacker") })
            #expect(python.expected.contains("urllib.error.URLError: <urlopen error [SSL: CERTIFICATE_VERIFY_FAILED]"))
            #expect(!python.expected.contains("SSLCertVerificationError"))
            let refused = try Subprocess.paste(python.line)
            #expect(refused.output.contains(python.outcome.output), "\(refused.output)")
        }
    }
}
