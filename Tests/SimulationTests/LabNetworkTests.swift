import Foundation
import LoopbackTLS
import Simulation
import TestSupport
import Testing

/// The lab as real devices meet it, bound to 127.0.0.2 (a loopback address other than the default, as
/// `--listen` would use a LAN one; nothing leaves this machine), driven by real curl, openssl and Python.
@Suite(.serialized) struct LabNetworkTests {
    static let address = try! ListenAddress("127.0.0.2")

    /// A lab on 127.0.0.2 in the world of the first lesson with a forging attacker.
    func withLab(_ body: (Lab) throws -> Void) throws {
        let scenario = try #require(
            Lessons.all.first { $0.attacker.attack == .forge })
        let directory = NSTemporaryDirectory() + "mitmsim-lab-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lab = try Lab(scenario, directory: directory, address: Self.address) { _ in }
        defer { lab.stop() }
        try body(lab)
    }

    func proxy(_ lab: Lab) -> String { "http://\(lab.address):\(lab.proxyPort)" }

    /// The lab logs a connection when it ends, a moment after the client exits.
    func eventually(_ lab: Lab, _ matches: @escaping (Lab.Flow) -> Bool) -> Lab.Flow? {
        for _ in 0..<100 where !lab.flows.contains(where: matches) { usleep(20_000) }
        return lab.flows.first(where: matches)
    }

    @Test func everyPrintedCommandPointsAtTheListenAddress() throws {
        try withLab { lab in
            #expect(lab.commands.allSatisfy { !$0.line.contains("127.0.0.1") })
            #expect(lab.commands.contains { $0.line.contains("--proxy http://127.0.0.2:\(lab.proxyPort)") })
            #expect(lab.commands.contains { $0.line.contains("--resolve bank.test:\(lab.originPort):127.0.0.2") })
            let direct = try Subprocess.paste(try #require(lab.commands.first { $0.title == "curl straight to the bank" }).line)
            #expect(direct.status == 0, "\(direct.output)")
        }
    }

    @Test func aConnectToAnotherSiteIsForbiddenAndLoggedAsSuch() throws {
        try withLab { lab in
            let outcome = try Subprocess.run("/usr/bin/curl", ["-sS", "--proxy", proxy(lab), "https://example.com/"])
            #expect(outcome.status == 56, "curl: CONNECT tunnel failed, response 403: \(outcome.output)")
            let flow = try #require(eventually(lab) { $0.connectTarget == "example.com:443" })
            #expect(
                flow.description.hasPrefix(
                    "#1 CONNECT example.com:443: the proxy answered 'CONNECT example.com:443 HTTP/1.1' with 403 Forbidden "
                        + "(this proxy routes only 'bank.test', not 'example.com') [User-Agent 'curl/"), "\(flow)")
        }
    }

    @Test func theProfilePageLinksTheAttackersCAInEveryFormAndServesThem() throws {
        try withLab { lab in
            let base = proxy(lab)
            let page = try Subprocess.run("/usr/bin/curl", ["-sS", base + "/"])
            #expect(page.output.contains("<h1>Wi-Fi security profile</h1>"))
            #expect(page.output.contains("What installing it means"))
            for path in ["/wifi-security-ca.pem", "/wifi-security-ca.cer", "/wifi-security-ca.crt", "/wifi-security.mobileconfig"] {
                #expect(page.output.contains("href=\"\(path)\""), "the page links \(path)")
            }
            let directory = NSTemporaryDirectory() + "mitmsim-profile-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            for file in ["wifi-security-ca.pem", "wifi-security-ca.cer", "wifi-security-ca.crt", "wifi-security.mobileconfig"] {
                let download = try Subprocess.run("/usr/bin/curl", ["-sS", "-f", "-o", "\(directory)/\(file)", "\(base)/\(file)"])
                #expect(download.status == 0, "\(file): \(download.output)")
            }
            let pem = try Subprocess.run("/usr/bin/openssl", ["x509", "-in", "\(directory)/wifi-security-ca.pem", "-noout", "-subject"])
            #expect(pem.output.contains("CN = mitmsim lab attacker CA"), "\(pem.output)")
            for der in ["wifi-security-ca.cer", "wifi-security-ca.crt"] {
                let parsed = try Subprocess.run("/usr/bin/openssl", ["x509", "-inform", "DER", "-in", "\(directory)/\(der)", "-noout", "-subject"])
                #expect(parsed.output.contains("CN = mitmsim lab attacker CA"), "\(der): \(parsed.output)")
            }
            let profile = try Subprocess.run(
                "/usr/bin/python3",
                [
                    "-c",
                    """
                    import plistlib, sys
                    profile = plistlib.load(open(sys.argv[1], 'rb'))
                    payload = profile['PayloadContent'][0]
                    print(profile['PayloadType'], payload['PayloadType'], payload['PayloadContent'] == open(sys.argv[2], 'rb').read())
                    """,
                    "\(directory)/wifi-security.mobileconfig", "\(directory)/wifi-security-ca.cer",
                ])
            #expect(profile.output == "Configuration com.apple.security.root True\n", "\(profile.output)")
            let types = try Subprocess.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{content_type}", "\(base)/wifi-security-ca.crt"])
            #expect(types.output == "application/x-x509-ca-cert")
            let profileType = try Subprocess.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{content_type}", "\(base)/wifi-security.mobileconfig"])
            #expect(profileType.output == "application/x-apple-aspen-config")
            let missing = try Subprocess.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "\(base)/nothing-here"])
            #expect(missing.output == "404")
        }
    }

    @Test func theBanksFormCanBeOpenedAndABrowserStylePostLeaksThePasswordThroughCurlDashK() throws {
        try withLab { lab in
            let form = try Subprocess.run("/usr/bin/curl", ["-sS", "-k", "--proxy", proxy(lab), "https://bank.test/"])
            #expect(form.output.contains("<form method=\"post\" action=\"/login\">"), "\(form.output)")
            #expect(form.output.contains("name=\"password\" type=\"password\""))
            // As a browser encodes the form: '@' as %40, a space as '+'.
            let login = try Subprocess.run(
                "/usr/bin/curl",
                ["-sS", "-k", "--proxy", proxy(lab), "-A", "Mozilla/5.0 (lab test)", "-d", "username=bob&password=p%40ss+word", "https://bank.test/login"])
            #expect(login.output.contains("Welcome back, bob."), "\(login.output)")
            let flow = try #require(eventually(lab) { $0.stolenSecret != nil })
            #expect(flow.stolenSecret == "p@ss word")
            #expect(flow.description.hasSuffix("[SNI 'bank.test', ALPN h2, http/1.1, User-Agent 'Mozilla/5.0 (lab test)']"), "\(flow)")
            #expect(
                flow.description.hasPrefix(
                    "#2 CONNECT bank.test:443: STOLEN password 'p@ss word'; presented 'forged bank-leaf' -> 'lab-attacker-ca'; "
                        + "the client ACCEPTED it; READ POST /login HTTP/1.1 ["), "\(flow)")
        }
    }

    @Test(arguments: ["GET / HTTP/1.0\\r\\nHost: bank.test\\r\\n\\r\\n", "GET / HTTP/1.1\\r\\nHost: bank.test\\r\\nConnection: close\\r\\n\\r\\n"])
    func aClientReadingToTheEndOfTheStreamGetsCloseNotifyFromTheBankAndThroughTheAttacker(_ request: String) throws {
        try withLab { lab in
            // Python reads until the stream ends, failing on a timeout (shorter than the bank's 5 s) or on
            // an end without close_notify (suppress_ragged_eofs=False).
            let script = """
                import socket, ssl, sys
                context = ssl._create_unverified_context()
                with socket.create_connection(('\(lab.address)', int(sys.argv[1])), timeout=3) as raw:
                    with context.wrap_socket(raw, server_hostname='bank.test', suppress_ragged_eofs=False) as tls:
                        tls.sendall(b'\(request)')
                        answer = b''
                        while chunk := tls.recv(4096):
                            answer += chunk
                        print(answer.split(b'\\r\\n')[0].decode(), 'then end of stream')
                """
            for port in [lab.originPort, lab.proxyPort] {
                let outcome = try Subprocess.run("/usr/bin/python3", ["-c", script, "\(port)"])
                #expect(outcome.output == "HTTP/1.1 200 OK then end of stream\n", "port \(port): \(outcome.output)")
            }
        }
    }

    @Test func aTransparentConnectionWithoutSNIReachesTheBank() throws {
        try withLab { lab in
            // curl sends no SNI for an IP address in the URL.
            let outcome = try Subprocess.run(
                "/usr/bin/curl", ["-sS", "-k", "-d", "username=alice&password=hunter2", "https://\(lab.address):\(lab.proxyPort)/login"])
            #expect(outcome.output.contains("Welcome back, alice."), "\(outcome.output)")
            #expect(lab.requestsReceived == ["POST /login"])
            let flow = try #require(eventually(lab) { $0.stolenSecret != nil })
            #expect(flow.description.hasPrefix("#1 transparent TLS: STOLEN password 'hunter2'; presented"), "\(flow)")
            #expect(flow.description.contains("[no SNI (routed to 'bank.test'), ALPN h2, http/1.1, User-Agent 'curl/"), "\(flow)")
        }
    }

    @Test func aClientThatClosesAfterTheHandshakeIsNotSaidToHaveAcceptedAnything() throws {
        try withLab { lab in
            _ = try Subprocess.paste(
                "openssl s_client -connect \(lab.address):\(lab.proxyPort) -servername bank.test -alpn h2,http/1.1 </dev/null")
            let quiet = try #require(eventually(lab) { $0.number == 1 })
            #expect(quiet.outcome == .closedAfterHandshake)
            #expect(
                quiet.description
                    == "#1 transparent TLS: presented 'forged bank-leaf' -> 'lab-attacker-ca'; "
                    + "the client completed the handshake and closed without sending a request, which happens when a client rejects "
                    + "the certificate after the handshake (curl --pinnedpubkey) or when it had nothing to send (openssl s_client </dev/null) "
                    + "[SNI 'bank.test', ALPN h2, http/1.1]")
            let pinned = try Subprocess.paste(try #require(lab.commands.first { $0.title.hasPrefix("curl -k with the real leaf's key pinned") }).line)
            #expect(pinned.status == 90)
            let refusedPin = try #require(eventually(lab) { $0.number == 2 })
            #expect(refusedPin.outcome == .closedAfterHandshake)
            #expect(!refusedPin.description.contains("ACCEPTED"))
            #expect(refusedPin.description.hasPrefix("#2 CONNECT bank.test:443: presented"), "\(refusedPin)")
            #expect(refusedPin.description.hasSuffix("[SNI 'bank.test', ALPN h2, http/1.1]"), "\(refusedPin)")
        }
    }
}
