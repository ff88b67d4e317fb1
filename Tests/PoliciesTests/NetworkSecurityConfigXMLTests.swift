import Foundation
import PKI
import Policies
import Testing

/// `network_security_config.xml` read into the Android model's own `NetworkSecurityConfig`, and judged as written.
struct NetworkSecurityConfigXMLTests {
    static let world = AndroidWorld.shared
    typealias NSC = NetworkSecurityConfig

    static func read(_ xml: String) throws(ConfigurationError) -> NSC { try NSC(xml: Array(xml.utf8), depthLimit: 32) }

    @Test("A network security config read from XML is the model's value: anchors as written, pins, nesting and debug overrides")
    func readsTheModelsOwnValue() throws {
        let leafPin = NSC.Pin(certificate: Self.world.leaf)
        let config = try Self.read(
            """
            <?xml version="1.0" encoding="utf-8"?>
            <network-security-config>
                <base-config cleartextTrafficPermitted="false"><trust-anchors><certificates src="system"/></trust-anchors></base-config>
                <domain-config>
                    <domain includeSubdomains="true">Bank.test</domain>
                    <trust-anchors><certificates src="user" overridePins="true"/><certificates src="@raw/bank_ca"/></trust-anchors>
                    <pin-set expiration="2027-01-01"><pin digest="SHA-256">\(leafPin.digest)</pin></pin-set>
                    <domain-config><domain>api.bank.test</domain></domain-config>
                </domain-config>
                <debug-overrides><trust-anchors><certificates src="user"/></trust-anchors></debug-overrides>
            </network-security-config>
            """)
        let nested = NSC.DomainConfig(domains: [.init("api.bank.test")])
        let expected = NSC(
            baseConfig: .init(cleartextTrafficPermitted: false, trustAnchors: [.init(.system)]),
            domainConfigs: [
                .init(
                    domains: [.init("bank.test", includeSubdomains: true)],
                    trustAnchors: [.init(.user, overridePins: true), .init(.resource(name: "@raw/bank_ca", certificates: []))],
                    pinSet: .init(pins: [leafPin], expiration: CalendarDay.date("2027-01-01")), domainConfigs: [nested])
            ],
            debugOverrides: [.init(.user)])
        #expect(config == expected)
        #expect(config.allDomainConfigs.map(\.domains) == [[.init("bank.test", includeSubdomains: true)], [.init("api.bank.test")]])
        #expect(config.domainMatch(for: "api.bank.test")?.chain.count == 2)
    }

    @Test("The config read from XML judges a connection: its pin-set refuses the attacker's chain to the nested domain")
    func judgesAsWritten() throws {
        let config = try Self.read(
            """
            <network-security-config><domain-config><domain>bank.test</domain>
              <trust-anchors><certificates src="system"/><certificates src="user"/></trust-anchors>
              <pin-set><pin digest="SHA-256">\(NSC.Pin(certificate: Self.world.leaf).digest)</pin></pin-set>
              <domain-config><domain>api.bank.test</domain></domain-config>
            </domain-config></network-security-config>
            """)
        let client = AndroidNetworkSecurityClient(config: config)
        #expect(
            client.evaluate(Self.world.connection(Self.world.forgedChain, host: "api.bank.test", attackerInstalled: true)).rejection
                == .androidPinVerificationFailed)
        #expect(client.evaluate(Self.world.connection(Self.world.realChain)).isTrusted)
    }

    @Test(
        "A file Android would refuse, or one built to be costly, is refused with the line and the element",
        arguments: [
            (
                "<network-security-config>\n<base-config>\n<pin-set/></base-config></network-security-config>", "line 3, <pin-set>",
                "is not allowed inside <base-config> (expected: certificateTransparency, trust-anchors)"
            ),
            (
                "<network-security-config><domain-config/></network-security-config>", "line 1, <domain-config>",
                "names no <domain> (Android requires at least one)"
            ),
            (
                "<network-security-config><domain-config><domain>a.test</domain><pin-set><pin digest=\"SHA-256\">AAAA</pin></pin-set></domain-config></network-security-config>",
                "line 1, <pin>", "'AAAA' is not the base64 of a 32-byte SHA-256 digest"
            ),
            (
                String(repeating: "<a>", count: 33) + String(repeating: "</a>", count: 33), "line 1, <a>",
                "nests elements more than 32 deep, the most mitmsim reads (a network security config needs fewer than 10)"
            ),
        ])
    func refusals(xml: String, path: String, reason: String) {
        #expect(throws: ConfigurationError(path: path, reason: reason)) { try Self.read(xml) }
    }
}
