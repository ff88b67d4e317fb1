import Foundation
import Policies
import Testing

@testable import PKI

/// Android's Certificate Transparency: `<certificateTransparency>` in the Network Security Config, the API 37
/// default, the exemption of user and bundled anchors, and Conscrypt's policy over SCTs OpenSSL verified.
struct AndroidCertificateTransparencyTests {
    typealias NSC = NetworkSecurityConfig
    static let clock = AFFixtures.clock
    static let world = try! TransparencyWorld()

    /// A public CA in the system store, three logs of two operators that accept it, and leaves logged in some of them.
    struct TransparencyWorld: Sendable {
        let factory = CertificateFactory(now: AndroidCertificateTransparencyTests.clock)
        let root: Identity
        let logs: [CTLog]
        /// A year-long leaf in no log, in one operator's two logs, in all three; a 90-day leaf in one operator's two
        /// logs, and in one log of each operator.
        let unlogged: Certificate, loggedTwiceByOneOperator: Certificate, loggedEverywhere: Certificate
        let shortLivedOneOperator: Certificate, shortLivedTwoOperators: Certificate

        init() throws {
            let start = AFFixtures.date("2026-05-01T00:00:00Z")
            let factory = factory
            let root = try factory.makeIdentity(
                .authority(label: "public-ca", commonName: "Public CA", notBefore: start, notAfter: AFFixtures.date("2036-05-01T00:00:00Z")))
            let logs = try [("north-1", "North Logs"), ("north-2", "North Logs"), ("south-1", "South Logs")].map {
                try CTLog(name: $0.0, operatorName: $0.1, acceptedRoots: [root.certificate])
            }
            self.root = root
            self.logs = logs
            func leaf(days: Double, _ logged: [CTLog]) throws -> Certificate {
                let spec = CertificateSpec.serverLeaf(
                    label: "bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: start.addingTimeInterval(days * 86_400))
                return try factory.issue(spec, key: try PrivateKey.generate(), signedBy: root, chain: [], loggingTo: logged)
            }
            unlogged = try leaf(days: 365, [])
            loggedTwiceByOneOperator = try leaf(days: 365, [logs[0], logs[1]])
            loggedEverywhere = try leaf(days: 365, logs)
            shortLivedOneOperator = try leaf(days: 90, [logs[0], logs[1]])
            shortLivedTwoOperators = try leaf(days: 90, [logs[0], logs[2]])
        }

        /// `leaf` under the public CA, on a phone whose log list holds `known` (the world's logs when `.some(nil)`; no
        /// log list when nil) and, when
        /// `userInstalled`, with the CA in the user-added store instead of the system one.
        func connection(_ leaf: Certificate, known: [CTLog]?? = .some(nil), userInstalled: Bool = false) throws -> PresentedConnection {
            let listed = known.map { $0 ?? logs }
            let store = DeviceTrustStore(
                system: userInstalled ? [] : [root.certificate], userInstalled: userInstalled ? [root.certificate] : [],
                transparencyLogs: try listed.map { try CTLogList($0.map(\.listing)) })
            let trust = ServerTrust(certificates: [leaf], deviceTrustStore: store, verifyDate: AndroidCertificateTransparencyTests.clock, platform: .android)
            return PresentedConnection(serverTrust: trust, negotiated: AndroidWorld.tls13, host: "bank.test", domain: "bank.test")
        }
    }

    static func read(_ xml: String) throws(ConfigurationError) -> NSC { try NSC(xml: Array(xml.utf8), depthLimit: 32) }

    // MARK: - The element

    @Test("<certificateTransparency enabled> is read in base-config and domain-config; without enabled it is false, as Android reads it")
    func readsTheElement() throws {
        let config = try Self.read(
            """
            <network-security-config>
                <base-config><certificateTransparency enabled="true"/></base-config>
                <domain-config>
                    <domain>bank.test</domain>
                    <certificateTransparency enabled="false"/>
                    <domain-config><domain>api.bank.test</domain><certificateTransparency/></domain-config>
                </domain-config>
            </network-security-config>
            """)
        #expect(config.baseConfig?.certificateTransparency == true)
        #expect(config.domainConfigs.first?.certificateTransparency == false)
        #expect(config.domainConfigs.first?.domainConfigs.first?.certificateTransparency == false)
        #expect(try Self.read("<network-security-config><base-config/></network-security-config>").baseConfig?.certificateTransparency == nil)
    }

    @Test(
        "A <certificateTransparency> Android refuses is refused with its line and element",
        arguments: [
            (
                "<network-security-config><base-config>\n<certificateTransparency enabled=\"yes\"/></base-config></network-security-config>",
                "line 2, <certificateTransparency>", "enabled 'yes' is neither true nor false"
            ),
            (
                "<network-security-config><debug-overrides>\n<certificateTransparency enabled=\"true\"/></debug-overrides></network-security-config>",
                "line 2, <certificateTransparency>", "is not allowed inside <debug-overrides> (expected: trust-anchors)"
            ),
            (
                "<network-security-config><base-config><certificateTransparency enabled=\"true\"/>\n<certificateTransparency/></base-config></network-security-config>",
                "line 2, <certificateTransparency>", "appears twice in one <base-config>"
            ),
            (
                "<network-security-config><base-config>\n<certificateTransparency enabled=\"true\" required=\"true\"/></base-config></network-security-config>",
                "line 2, <certificateTransparency>", "unknown attribute required (expected: enabled)"
            ),
        ])
    func refusesWhatAndroidRefuses(xml: String, path: String, reason: String) {
        #expect(throws: ConfigurationError(path: path, reason: reason)) { try Self.read(xml) }
    }

    // MARK: - Whether CT applies

    static func verdict(_ client: AndroidNetworkSecurityClient, _ leaf: Certificate, userInstalled: Bool = false) throws -> PolicyEvaluation {
        client.evaluate(try world.connection(leaf, userInstalled: userInstalled))
    }

    @Test("An unlogged leaf at a system CA passes targetSdkVersion 36 and fails 37, Android's default from API 37", arguments: [36, 37])
    func defaultFollowsTheTarget(sdk: Int) throws {
        let evaluation = try Self.verdict(AndroidNetworkSecurityClient(targetSdkVersion: sdk), Self.world.unlogged)
        #expect(evaluation.isTrusted == (sdk < 37), "\(evaluation.text)")
        #expect(evaluation.rejection == (sdk < 37 ? nil : .androidTransparencyPolicyNotMet))
        #expect(evaluation.steps.contains { $0.check == .androidCertificateTransparency } == (sdk >= 37))
    }

    @Test("The element overrides the target's default, from the domain-config that governs the host up to the base-config")
    func elementOverridesTheDefault() throws {
        let optIn = NSC(baseConfig: .init(certificateTransparency: true))
        #expect(try Self.verdict(.init(config: optIn, targetSdkVersion: 34), Self.world.unlogged).decidingStep?.check == .androidCertificateTransparency)
        let optOut = NSC(domainConfigs: [.init(domains: [.init("bank.test")], certificateTransparency: false)])
        let evaluation = try Self.verdict(.init(config: optOut, targetSdkVersion: 37), Self.world.unlogged)
        #expect(evaluation.isTrusted)
        #expect(
            evaluation.steps.first { $0.check == .androidCertificateTransparency }
                == TraceStep(
                    .androidCertificateTransparency, .skipped,
                    "Certificate Transparency is not required: <certificateTransparency enabled=\"false\"> in the domain-config for 'bank.test'"))
        // A nested domain-config inherits its parent's element.
        let nested = NSC(
            baseConfig: .init(certificateTransparency: false),
            domainConfigs: [.init(domains: [.init("bank.test")], domainConfigs: [.init(domains: [.init("api.bank.test")])], certificateTransparency: true)])
        let client = AndroidNetworkSecurityClient(config: nested, targetSdkVersion: 34)
        var connection = try Self.world.connection(Self.world.unlogged)
        connection.host = "api.bank.test"
        #expect(client.evaluate(connection).rejection == .androidTransparencyPolicyNotMet)
    }

    @Test(
        "User-added and bundled anchors switch CT off for their config at API 37, unless the element says otherwise",
        arguments: [NSC.CertificatesEntry.Source.user, .resource(name: "@raw/public_ca", certificates: [])])
    func userAndInlineAnchorsAreExempt(source: NSC.CertificatesEntry.Source) throws {
        var anchor = source
        if case .resource(let name, _) = source { anchor = .resource(name: name, certificates: [Self.world.root.certificate]) }
        let anchors: [NSC.CertificatesEntry] = [.init(.system), .init(anchor)]
        let exempt = try Self.verdict(.init(config: NSC(baseConfig: .init(trustAnchors: anchors)), targetSdkVersion: 37), Self.world.unlogged)
        #expect(exempt.isTrusted, "\(exempt.text)")
        #expect(exempt.steps.first { $0.check == .androidCertificateTransparency }?.outcome == .skipped)
        // Android asks each level up the chain: a domain-config's own system anchors do not stop the base-config's from
        // switching CT off, but a domain-config under a base-config of system anchors alone needs CT.
        let own = NSC(baseConfig: .init(trustAnchors: anchors), domainConfigs: [.init(domains: [.init("bank.test")], trustAnchors: [.init(.system)])])
        #expect(try Self.verdict(.init(config: own, targetSdkVersion: 37), Self.world.unlogged).isTrusted)
        let systemOnly = NSC(baseConfig: .init(trustAnchors: [.init(.system)]), domainConfigs: [.init(domains: [.init("other.test")], trustAnchors: anchors)])
        #expect(try Self.verdict(.init(config: systemOnly, targetSdkVersion: 37), Self.world.unlogged).rejection == .androidTransparencyPolicyNotMet)
        // A domain-config that inherits the anchors inherits the exemption too.
        let inherits = NSC(baseConfig: .init(trustAnchors: anchors), domainConfigs: [.init(domains: [.init("bank.test")], cleartextTrafficPermitted: false)])
        #expect(try Self.verdict(.init(config: inherits, targetSdkVersion: 37), Self.world.unlogged).isTrusted)
        // Below API 37 the exemption is a step of its own only where it overrides an element further up.
        let overridden = NSC(
            baseConfig: .init(certificateTransparency: true), domainConfigs: [.init(domains: [.init("bank.test")], trustAnchors: anchors)])
        let below = try Self.verdict(.init(config: overridden, targetSdkVersion: 34), Self.world.unlogged)
        #expect(below.isTrusted)
        #expect(
            below.steps.first { $0.check == .androidCertificateTransparency }?.detail
                == "Certificate Transparency is not required: the domain-config for 'bank.test' lists its own trust anchors, among them "
                + "<certificates src=\"\(anchor.src)\">, and Android turns CT off for such a config unless a <certificateTransparency> element says otherwise")
        let optedIn = NSC(baseConfig: .init(trustAnchors: anchors, certificateTransparency: true))
        #expect(try Self.verdict(.init(config: optedIn, targetSdkVersion: 37), Self.world.unlogged).rejection == .androidTransparencyPolicyNotMet)
    }

    @Test("debug-overrides' user anchors switch CT off in a debuggable build only")
    func debugOverridesExemptDebuggableBuilds() throws {
        let config = NSC(debugOverrides: [.init(.user)])
        #expect(try Self.verdict(.init(config: config, targetSdkVersion: 37, debuggable: true), Self.world.unlogged).isTrusted)
        #expect(try Self.verdict(.init(config: config, targetSdkVersion: 37), Self.world.unlogged).rejection == .androidTransparencyPolicyNotMet)
    }

    // MARK: - Conscrypt's counts

    @Test(
        "Conscrypt's policy: 2 distinct logs up to 180 days, else 3, from at least 2 operators",
        arguments: [
            (\TransparencyWorld.unlogged, ConscryptTransparencyPolicy.Compliance.notEnoughSCTs, 3),
            (\TransparencyWorld.loggedTwiceByOneOperator, .notEnoughSCTs, 3),
            (\TransparencyWorld.loggedEverywhere, .comply, 3),
            (\TransparencyWorld.shortLivedOneOperator, .notEnoughDiverseSCTs, 2),
            (\TransparencyWorld.shortLivedTwoOperators, .comply, 2),
        ])
    func counts(leaf: KeyPath<TransparencyWorld, Certificate> & Sendable, compliance: ConscryptTransparencyPolicy.Compliance, required: Int) throws {
        let policy = ConscryptTransparencyPolicy(
            leaf: Self.world[keyPath: leaf], issuer: Self.world.root.certificate, logList: try CTLogList(Self.world.logs.map(\.listing)), at: Self.clock)
        #expect(policy.compliance == compliance)
        #expect(policy.required == required)
        let evaluation = try Self.verdict(.init(targetSdkVersion: 37), Self.world[keyPath: leaf])
        #expect(evaluation.isTrusted == (compliance == .comply), "\(evaluation.text)")
        if compliance != .comply {
            #expect(
                evaluation.decidingStep?.detail.hasSuffix(
                    "\(compliance.rawValue). checkServerTrusted throws CertificateException: Certificate chain does not conform to required "
                        + "transparency policy: \(compliance.rawValue), and the handshake fails with SSLHandshakeException") == true)
        }
    }

    @Test("Only logs the device knows count, and without a log list Conscrypt fails open")
    func knownLogsOnly() throws {
        let client = AndroidNetworkSecurityClient(targetSdkVersion: 37)
        let fewer = client.evaluate(try Self.world.connection(Self.world.loggedEverywhere, known: Array(Self.world.logs.prefix(2))))
        #expect(fewer.rejection == .androidTransparencyPolicyNotMet)
        let open = client.evaluate(try Self.world.connection(Self.world.unlogged, known: nil))
        #expect(open.isTrusted)
        #expect(open.steps.first { $0.check == .androidCertificateTransparency }?.detail.hasSuffix("so Conscrypt fails open and checks no SCT") == true)
    }

    @Test("A tampered SCT does not count on Android: OpenSSL finds its signature bad")
    func tamperedSCTIsRefused() throws {
        // A leaf of its own, logged everywhere: no other test logs, so it is each log's last entry.
        let spec = CertificateSpec.serverLeaf(
            label: "tampered bank.test", dnsNames: ["bank.test"], notBefore: AFFixtures.date("2026-05-01T00:00:00Z"),
            notAfter: AFFixtures.date("2027-05-01T00:00:00Z"))
        _ = try Self.world.factory.issue(spec, key: try PrivateKey.generate(), signedBy: Self.world.root, chain: [], loggingTo: Self.world.logs)
        let entries = Self.world.logs.compactMap(\.entries.last)
        #expect(entries.count == 3)
        let genuine = try #require(entries.first)
        var timestamps = entries.map(\.timestamp)
        var signature = timestamps[2].signature
        signature[signature.count - 1] ^= 0x01
        timestamps[2] = SignedCertificateTimestamp(logID: timestamps[2].logID, timestamp: timestamps[2].timestamp, signature: signature)
        let leaf = try CertificateFactory.finalCertificate(genuine.precertificate, timestamps: timestamps, issuer: Self.world.root, digest: .sha256)
        let evaluation = try Self.verdict(.init(targetSdkVersion: 37), leaf)
        #expect(evaluation.rejection == .androidTransparencyPolicyNotMet)
        #expect(evaluation.decidingStep?.detail.contains("SCTs that do not verify (a bad signature or a future time) from 'south-1' (South Logs)") == true)
    }

    // MARK: - OkHttp on Android

    @Test("OkHttp on Android meets the platform's CT from targetSdkVersion 37, whatever its own code checks", arguments: [34, 37])
    func okHttpFollowsThePlatform(sdk: Int) throws {
        let client = OkHttpClient(trustManager: .platformDefault(targetSdkVersion: sdk), targetSdkVersion: sdk)
        let evaluation = client.evaluate(try Self.world.connection(Self.world.unlogged))
        #expect(evaluation.rejection == (sdk < 37 ? nil : .androidTransparencyPolicyNotMet), "\(evaluation.text)")
        #expect(client.evaluate(try Self.world.connection(Self.world.loggedEverywhere)).isTrusted)
    }
}
