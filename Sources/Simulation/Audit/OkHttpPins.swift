import Foundation
import PKI
import Policies

/// One line of an `--okhttp-pins` file: what `CertificatePinner.Builder().add(pattern, "sha256/…")` is given.
public struct OkHttpPin: Sendable, Equatable {
    /// `example.com`, `*.example.com` (one label) or `**.example.com` (any number of labels, and the domain itself).
    public var pattern: String
    /// The base64 SHA-256 digest of a SubjectPublicKeyInfo, without `sha256/`.
    public var hash: String
    /// The line it was read from.
    public var line: Int

    /// The domain under the pattern's wildcard, or the pattern itself.
    public var domain: String { String(pattern.drop { $0 == "*" }.drop { $0 == "." }) }

    /// A host the pattern covers, for the audit to connect to: the domain itself, or `www.` under a wildcard.
    public var representativeHost: String { pattern.hasPrefix("*") ? "www." + domain : pattern }

    /// Reads `host-pattern sha256/BASE64` lines; `#` starts a comment, blank lines are skipped.
    public static func read(_ path: String) throws -> [OkHttpPin] {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, limit: AuditLimits.configurationBytes, kind: "an OkHttp pin file")
        } catch {
            throw ScenarioError(file: path, path: "", reason: error.reason)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw ScenarioError(file: path, path: "", reason: "is not UTF-8 text") }
        var pins: [OkHttpPin] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            func refuse(_ reason: String) -> ScenarioError { ScenarioError(file: path, path: "line \(index + 1)", reason: reason) }
            let content = raw.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
            guard !content.isEmpty else { continue }
            let fields = content.split(whereSeparator: \.isWhitespace).map(String.init)
            guard fields.count == 2 else { throw refuse("expected 'host-pattern sha256/BASE64', found \(fields.count) fields") }
            let pattern = fields[0].lowercased()
            let bare = pattern.hasPrefix("**.") ? pattern.dropFirst(3) : pattern.hasPrefix("*.") ? pattern.dropFirst(2) : Substring(pattern)
            guard HostName.isValid(String(bare)), !bare.contains("*"), bare.contains(".") || bare == pattern else {
                throw refuse("'\(fields[0])' is not a host pattern (example.com, *.example.com or **.example.com)")
            }
            guard fields[1].hasPrefix("sha256/") else {
                throw refuse("'\(fields[1])' is not a sha256/ pin (mitmsim reads OkHttp's sha256/BASE64 pins only)")
            }
            let hash = String(fields[1].dropFirst("sha256/".count))
            guard SPKIPin(base64: hash) != nil else { throw refuse("'\(hash)' is not the base64 of a 32-byte SHA-256 digest") }
            pins.append(OkHttpPin(pattern: pattern, hash: hash, line: index + 1))
        }
        guard !pins.isEmpty else { throw ScenarioError(file: path, path: "", reason: "holds no pin (lines 'host-pattern sha256/BASE64')") }
        return pins
    }
}

/// How large an audit's inputs may be, and how deep its XML may nest; `Docs/limits.md` gives the reasons.
public enum AuditLimits {
    /// Bytes in a network security config, an OkHttp pin file or an AFNetworking audit file (an app's are a few KB).
    public static let configurationBytes = 64 << 10
    /// How deep a network security config's elements may nest (Foundation's reader recurses once per level).
    public static let xmlDepth = 32
    /// Hosts one audit covers, each a world and every attack: the cost grows with each.
    public static let hosts = 16
    /// `--chain` files.
    public static let chains = 8
    /// Certificates in one `--chain` file (a server sends two or three).
    public static let chainCertificates = 6
}
