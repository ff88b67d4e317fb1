import Foundation
import PKI

extension CertificatePinner {
    /// One pin of a pin file and the line it was read from.
    public typealias PinLine = (line: Int, pin: Pin)

    /// Reads a pin file (`--okhttp-pins`): one `host-pattern sha256/BASE64` line per
    /// `CertificatePinner.Builder().add(pattern, "sha256/…")`; `#` starts a comment, blank lines are skipped.
    /// Stricter than `add` in two ways: only `sha256/` pins of a 32-byte digest, and no IP address (an audit generates
    /// certificates for host names). A pattern is read as `add` reads it (`*.test` too: OkHttp's `CertificatePinner`
    /// takes a wildcard over a single label). Any error names the line.
    public static func pins(inPinFile bytes: [UInt8]) throws(ConfigurationError) -> [PinLine] {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw ConfigurationError(path: "", reason: "is not UTF-8 text") }
        var pins: [PinLine] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            func refuse(_ reason: String) -> ConfigurationError { ConfigurationError(path: "line \(index + 1)", reason: reason) }
            let content = raw.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
            guard !content.isEmpty else { continue }
            let fields = content.split(whereSeparator: \.isWhitespace).map(String.init)
            guard fields.count == 2 else { throw refuse("expected 'host-pattern sha256/BASE64', found \(fields.count) fields") }
            let pattern = fields[0].lowercased()
            guard !CertificateSpec.isIPAddress(pattern) else { throw refuse(ConfigurationError.ipAddressRefusal(fields[0])) }
            guard Pin.domain(ofPattern: pattern) != nil else {
                throw refuse("'\(fields[0])' is not a host pattern (example.com, *.example.com or **.example.com)")
            }
            guard fields[1].hasPrefix("sha256/") else {
                throw refuse("'\(fields[1])' is not a sha256/ pin (mitmsim reads OkHttp's sha256/BASE64 pins only)")
            }
            let hash = String(fields[1].dropFirst("sha256/".count))
            guard SPKIPin(base64: hash) != nil else { throw refuse("'\(hash)' is not the base64 of a 32-byte SHA-256 digest") }
            pins.append((index + 1, Pin(checkedPattern: pattern, hashAlgorithm: .sha256, hash: hash)))
        }
        guard !pins.isEmpty else { throw ConfigurationError(path: "", reason: "holds no pin (lines 'host-pattern sha256/BASE64')") }
        return pins
    }
}
