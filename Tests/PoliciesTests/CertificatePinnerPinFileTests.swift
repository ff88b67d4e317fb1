import Foundation
import PKI
import Policies
import Testing

/// An `--okhttp-pins` file read into OkHttp's own `CertificatePinner.Pin`s, each with its line.
struct CertificatePinnerPinFileTests {
    static let world = AndroidWorld.shared
    static let key = world.leaf.publicKeySHA256Base64

    static func read(_ text: String) throws(ConfigurationError) -> [CertificatePinner.PinLine] {
        try CertificatePinner.pins(inPinFile: Array(text.utf8))
    }

    @Test("A pin file gives the pins Builder.add would make, with their lines, and they pin as OkHttp does")
    func readsTheModelsOwnPins() throws {
        let lines = try Self.read("# pins\n*.Bank.test sha256/\(Self.key)\n\n**.bank.test sha256/\(Self.key)  # backup\n")
        #expect(lines.map(\.line) == [2, 4])
        #expect(
            lines.map(\.pin) == [try .init(pattern: "*.bank.test", pin: "sha256/" + Self.key), try .init(pattern: "**.bank.test", pin: "sha256/" + Self.key)])
        #expect(lines.map(\.pin.representativeHost) == ["www.bank.test", "www.bank.test"])
        let client = OkHttpClient(certificatePinner: CertificatePinner(pins: lines.map(\.pin)), trustManager: .platformDefault(targetSdkVersion: 23))
        #expect(client.evaluate(Self.world.connection(Self.world.forgedChain, attackerInstalled: true)).rejection == .okHttpCertificatePinningFailure)
    }

    @Test(
        "A line OkHttp's builder would refuse, or mitmsim reads no pin from, is refused with its line",
        arguments: [
            ("a.test sha1/AAAA", "line 1", "'sha1/AAAA' is not a sha256/ pin (mitmsim reads OkHttp's sha256/BASE64 pins only)"),
            ("\na.test sha256/AAAA", "line 2", "'AAAA' is not the base64 of a 32-byte SHA-256 digest"),
            ("bank.*.test sha256/\(key)", "line 1", "'bank.*.test' is not a host pattern (example.com, *.example.com or **.example.com)"),
            ("a.test", "line 1", "expected 'host-pattern sha256/BASE64', found 1 fields"),
            ("# nothing\n", "", "holds no pin (lines 'host-pattern sha256/BASE64')"),
        ])
    func refusals(text: String, path: String, reason: String) {
        #expect(throws: ConfigurationError(path: path, reason: reason)) { try Self.read(text) }
    }
}
