import Foundation
import PKI
import Policies
import Testing

/// One check of a SHA-256 public-key pin, shared by TrustKit and Android's pin-set.
struct SPKIPinTests {
    static let key = BankWorld.shared.leaf.certificate.publicKeySHA256Base64

    @Test(
        "A pin is the base64 of exactly 32 bytes, and TrustKit and Android's pin-set accept the same ones",
        arguments: [
            (key, true), (Data(repeating: 7, count: 32).base64EncodedString(), true), ("AAAA", false),
            (Data(repeating: 7, count: 20).base64EncodedString(), false), (Data(repeating: 7, count: 33).base64EncodedString(), false),
            ("not base64!", false), ("", false),
        ])
    func oneCheck(text: String, isPin: Bool) {
        #expect((SPKIPin(base64: text) != nil) == isPin)
        #expect(((try? NetworkSecurityConfig.Pin(base64: text)) != nil) == isPin)
        let other = Data(repeating: 9, count: 32).base64EncodedString()
        let trustKit = try? TrustKitConfiguration(pinnedDomains: ["bank.test": TrustKitDomainPolicy(publicKeyHashes: [text, other])])
        #expect((trustKit != nil) == isPin)
    }

    @Test("Two pins are one when their digests are, so TrustKit counts a key written twice as one pin")
    func equalityIsTheDigest() {
        #expect(SPKIPin(base64: Self.key) == SPKIPin(base64: Self.key))
        #expect(SPKIPin(base64: Self.key) != SPKIPin(base64: Data(repeating: 7, count: 32).base64EncodedString()))
        #expect(throws: TrustKitConfigurationError.self) {
            try TrustKitConfiguration(pinnedDomains: ["bank.test": TrustKitDomainPolicy(publicKeyHashes: [Self.key, Self.key])])
        }
    }
}
