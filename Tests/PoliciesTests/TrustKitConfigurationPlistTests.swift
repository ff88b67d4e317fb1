import Foundation
import PKI
import Policies
import Testing

/// `TSKConfiguration` read from a property list into TrustKit's own domain policies.
struct TrustKitConfigurationPlistTests {
    static let key = BankWorld.shared.leaf.certificate.publicKeySHA256Base64
    static let backup = Data(repeating: 7, count: 32).base64EncodedString()

    static func read(_ body: String) throws -> TrustKitConfiguration.Plist {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict>\(body)</dict></plist>"
        return try PropertyListDecoder().decode(TrustKitConfiguration.Plist.self, from: Data(xml.utf8))
    }

    @Test("A TSKConfiguration gives TrustKit's own domain policies, with TrustKit's defaults, and starts TrustKit")
    func readsTrustKitsOwnPolicies() throws {
        let plist = try Self.read(
            """
            <key>TSKSwizzleNetworkDelegates</key><false/>
            <key>TSKPinnedDomains</key><dict>
              <key>bank.test</key><dict><key>TSKIncludeSubdomains</key><true/><key>TSKReportUris</key><array><string>https://r.test</string></array>
                <key>TSKPublicKeyHashes</key><array><string>\(Self.key)</string><string>\(Self.backup)</string></array></dict>
              <key>www.bank.test</key><dict><key>TSKExcludeSubdomainFromParentPolicy</key><true/></dict>
            </dict>
            """)
        #expect(
            plist.pinnedDomains == [
                "bank.test": TrustKitDomainPolicy(publicKeyHashes: [Self.key, Self.backup], includeSubdomains: true),
                "www.bank.test": .excludedFromParentPolicy,
            ])
        #expect(plist.domain(covering: "api.bank.test")?.0 == "bank.test")
        #expect(plist.domain(covering: "www.bank.test")?.1 == .excludedFromParentPolicy)
        #expect(plist.domain(covering: "other.test") == nil)
        #expect(try TrustKitConfiguration(pinnedDomains: plist.pinnedDomains).policyKey(forHost: "api.bank.test") == "bank.test")
    }

    @Test(
        "A key TrustKit does not define, a bad pin or a bad date is refused at its key path",
        arguments: [
            ("<key>TSKPinnedDomains</key><dict><key>bank.test</key><dict><key>TSKPins</key><array/></dict></dict>", "TSKPins"),
            ("<key>TSKPinnedDomains</key><dict><key>bank.test</key><dict><key>TSKPublicKeyHashes</key><array><string>abc</string></array></dict></dict>", "0"),
            (
                "<key>TSKPinnedDomains</key><dict><key>bank.test</key><dict><key>TSKExpirationDate</key><string>2027-02-30</string></dict></dict>",
                "TSKExpirationDate"
            ),
            ("<key>TSKPinnedDomains</key><dict><key>Bank.test</key><dict/></dict>", "Bank.test"),
        ])
    func refusals(body: String, lastKey: String) {
        do {
            _ = try Self.read(body)
            Issue.record("read")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.last?.stringValue == lastKey)
        } catch {
            Issue.record("\(error)")
        }
    }
}
