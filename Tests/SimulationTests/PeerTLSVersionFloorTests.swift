import Policies
import Simulation
import Testing

/// Each peer model's TLS-version floor, against lesson 36's bank, whose real server speaks only TLS 1.0.
struct PeerTLSVersionFloorTests {
    static let peers: [ClientModelName] = [.okhttp, .okhttp3_1_1, .androidNSC, .curl, .curl8_17]

    static func tls10Bank(targetSdk: Int? = nil) throws -> Scenario {
        var lesson = try ScenarioCatalog.builtIn.load("36-tls10-server-refused-by-ats")
        if let targetSdk { lesson.client.peerOptions[AndroidLessonOptions.self].targetSdkVersion = targetSdk }
        return lesson
    }

    /// The floor's step of `row`, which a TLS 1.0 handshake always shows.
    static func floorStep(_ row: Comparison.Row) -> TraceStep? {
        row.report.evaluation?.steps.first { [.okHttpConnectionSpec, .androidTLSVersion, .curlTLSVersion].contains($0.check) }
    }

    @Test("Against a TLS 1.0 bank, every peer refuses the handshake at its floor's step, OkHttp 3.1.1 and the Network Security Config at Android's")
    func theTLS10BankIsRefusedByEveryPeer() throws {
        let comparison = try Comparison(scenario: Self.tls10Bank(), clients: Self.peers)
        #expect(comparison.rows.map(\.trusted) == [false, false, false, false, false])
        #expect(
            comparison.rows.map(\.decidingCheck) == [.okHttpConnectionSpec, .okHttpConnectionSpec, .androidTLSVersion, .curlTLSVersion, .curlTLSVersion])
        for row in comparison.rows {
            #expect(row.report.evaluation?.rejection == .tlsVersionRefused, "\(row.client)")
            #expect(row.report.result.serverReceivedRequest == false, "\(row.client)")
            #expect(Self.floorStep(row)?.detail.hasPrefix("TLS 1.0 was negotiated; ") == true, "\(row.client)")
        }
        #expect(Self.floorStep(comparison.rows[0])?.detail.contains("MODERN_TLS enables only TLS 1.3 and TLS 1.2") == true)
        #expect(Self.floorStep(comparison.rows[1])?.detail.contains("MODERN_TLS enables TLS 1.2, 1.1 and 1.0, and Android's platform") == true)
        #expect(Self.floorStep(comparison.rows[2])?.detail.contains("Conscrypt, as Android 15 and later ship it") == true)
        #expect(Self.floorStep(comparison.rows[3])?.detail.contains("OpenSSL 3") == true)
        #expect(Self.floorStep(comparison.rows[4])?.detail.contains("since 8.16.0") == true)
    }

    @Test("curl exits 35 (CURLE_SSL_CONNECT_ERROR) on the TLS 1.0 bank, as the installed curl 7.88.1 does against a TLS 1.0 server")
    func curlExitsWithTheHandshakesCode() throws {
        let comparison = try Comparison(scenario: Self.tls10Bank(), clients: [.curl, .curl8_17])
        for row in comparison.rows {
            let evaluation = try #require(row.report.evaluation)
            #expect(CurlClient.exitCode(of: evaluation) == .sslConnectError, "\(row.client)")
        }
    }

    @Test("Whatever the app targets, OkHttp 3.1.1 and the Network Security Config refuse the TLS 1.0 bank: Conscrypt supports TLS 1.2 and 1.3 only")
    func everyTargetRefusesTLS10OnAndroid() throws {
        for sdk in [23, 34, 35, 36, NetworkSecurityConfig.latestTargetSdkVersion] {
            let comparison = try Comparison(scenario: Self.tls10Bank(targetSdk: sdk), clients: [.okhttp3_1_1, .androidNSC])
            #expect(comparison.rows.map(\.trusted) == [false, false], "API \(sdk)")
            #expect(comparison.rows.map(\.decidingCheck) == [.okHttpConnectionSpec, .androidTLSVersion], "API \(sdk)")
            #expect(comparison.rows.allSatisfy { Self.floorStep($0)?.detail.contains("for every app whatever it targets") == true }, "API \(sdk)")
        }
    }
}

extension LoaderErrorTests {
    func android(targetSdk: Int) -> String {
        Self.valid.replacingOccurrences(of: "  library: afnetworking-4\n", with: "  library: okhttp\n  android:\n    targetSdkVersion: \(targetSdk)\n")
    }

    @Test("client.android.targetSdkVersion takes every API level up to 37 (Android 17), and names the range for 38")
    func targetSdkGoesUpTo37() throws {
        #expect(try load(android(targetSdk: 37)).client.peerOptions[AndroidLessonOptions.self].targetSdkVersion == 37)
        #expect(error(android(targetSdk: 38)) == "x.yaml: client.android.targetSdkVersion: expected an Android API level from 1 to 37, found 38")
    }
}

/// `mitmsim audit --target-sdk` takes the same range as a lesson.
struct AuditTargetSdkRangeTests {
    @Test("--target-sdk 38 is refused with the range, before any file is read")
    func targetSdk38IsRefused() {
        do {
            _ = try AuditConfiguration.read(androidNSC: "/nonexistent/network_security_config.xml", targetSDK: 38)
            Issue.record("--target-sdk 38 was accepted")
        } catch {
            #expect("\(error)" == "--target-sdk 38 is not an Android API level mitmsim models (1 to 37)")
        }
    }
}
