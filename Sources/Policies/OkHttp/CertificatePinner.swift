import Foundation
import PKI

/// OkHttp's `CertificatePinner`: SPKI hashes per host pattern, checked after the trust manager and the
/// host-name verifier have accepted the connection.
///
/// A host no pattern matches is not pinned at all (`check` returns at once), so an empty pinner (OkHttp's
/// `CertificatePinner.DEFAULT`) pins nothing.
public struct CertificatePinner: Sendable, Equatable {
    /// One `add(pattern, pin)`: a host pattern and the base64 hash of a SubjectPublicKeyInfo.
    public struct Pin: Sendable, Hashable, CustomStringConvertible {
        /// The digest a pin names, by its prefix.
        public enum HashAlgorithm: String, Sendable, Hashable {
            /// `sha256/`: today's pins.
            case sha256
            /// `sha1/`: legacy pins, still accepted; the only kind OkHttp 3.1 and older knew.
            case sha1
        }

        /// `bank.test`, `*.bank.test` (exactly one more label) or `**.bank.test` (any depth, bank.test itself
        /// included), lowercased.
        public let pattern: String
        public let hashAlgorithm: HashAlgorithm
        /// The SPKI digest, base64 as written after the prefix.
        public let hash: String

        /// `Pin(pattern, "sha256/…")` as `CertificatePinner.Builder.add` checks it: the pattern may carry a `*`
        /// only in a leading `*.` or `**.`, the rest must be a host name, and the pin must be `sha256/` or `sha1/`
        /// followed by base64.
        public init(pattern: String, pin: String) throws(CertificatePinnerError) {
            let host = pattern.lowercased()
            guard Self.domain(ofPattern: host) != nil else { throw .unexpectedPattern(pattern) }
            let algorithm: HashAlgorithm
            if pin.hasPrefix("sha256/") {
                algorithm = .sha256
            } else if pin.hasPrefix("sha1/") {
                algorithm = .sha1
            } else {
                throw .unknownHashAlgorithm(pin)
            }
            let hash = String(pin.dropFirst(algorithm.rawValue.count + 1))
            guard Data(base64Encoded: hash) != nil, !hash.isEmpty else { throw .invalidPinHash(pin) }
            self.init(checkedPattern: host, hashAlgorithm: algorithm, hash: hash)
        }

        /// A pin whose lowercased pattern and hash were checked already.
        init(checkedPattern pattern: String, hashAlgorithm: HashAlgorithm, hash: String) {
            self.pattern = pattern
            self.hashAlgorithm = hashAlgorithm
            self.hash = hash
        }

        /// `CertificatePinner.pin(certificate)`: the `sha256/` pin of `certificate`'s public key, for `pattern`.
        public init(pattern: String, certificate: Certificate) {
            self.pattern = pattern.lowercased()
            hashAlgorithm = .sha256
            hash = certificate.publicKeySHA256Base64
        }

        /// The host name after a leading `*.` or `**.` of a lowercased `pattern` (the pattern itself without one);
        /// nil unless it is a host name with no other `*`. The one check of a pattern, for `add` and a pin file.
        static func domain(ofPattern pattern: String) -> Substring? {
            let rest = pattern.hasPrefix("**.") ? pattern.dropFirst(3) : pattern.hasPrefix("*.") ? pattern.dropFirst(2) : Substring(pattern)
            guard !rest.contains("*"), HostName.isValid(String(rest)) else { return nil }
            return rest
        }

        /// The domain under the pattern's wildcard, or the pattern itself.
        public var domain: String { Self.domain(ofPattern: pattern).map(String.init) ?? pattern }

        /// A host the pattern covers, for an audit to connect to: the domain itself, or `www.` under a wildcard.
        public var representativeHost: String { pattern.hasPrefix("*") ? "www." + domain : pattern }

        /// "sha256/…": the pin as OkHttp writes it.
        public var description: String { "\(hashAlgorithm.rawValue)/\(hash)" }

        /// Today's `Pin.matchesHostname`: exact, `*.` for exactly one label more, `**.` for any depth including none.
        public func matchesHostname(_ hostname: String) -> Bool {
            let host = hostname.lowercased()
            if pattern.hasPrefix("**.") {
                let suffix = pattern.dropFirst(3)
                return host == suffix || host.hasSuffix("." + suffix)
            }
            if pattern.hasPrefix("*.") {
                let suffix = pattern.dropFirst(1)
                return host.hasSuffix(suffix) && !host.dropLast(suffix.count).contains(".") && host.count > suffix.count
            }
            return host == pattern
        }

        /// OkHttp 3.1's `findMatchingPins`: the host itself, or `*.` plus the host without its first label when
        /// the host has two dots or more. A `**.` pattern never matched: that syntax came later.
        func matchesHostnameBeforeDoubleWildcards(_ hostname: String) -> Bool {
            let host = hostname.lowercased()
            guard pattern != host else { return true }
            guard let firstDot = host.firstIndex(of: "."), host.lastIndex(of: ".") != firstDot else { return false }
            return pattern == "*." + host[host.index(after: firstDot)...]
        }

        /// True when `certificate`'s SPKI digest is this pin.
        func matches(_ certificate: Certificate) -> Bool {
            hash == (hashAlgorithm == .sha256 ? certificate.publicKeySHA256Base64 : certificate.publicKeySHA1Base64)
        }
    }

    /// Every pin, in the order they were added.
    public var pins: [Pin]

    /// `CertificatePinner.DEFAULT` when empty: nothing is pinned.
    public init(pins: [Pin] = []) { self.pins = pins }

    /// `findMatchingPins(hostname)`: the pins whose pattern matches the host, by the rules of `version`.
    public func findMatchingPins(_ hostname: String, version: OkHttpClient.Version = .current) -> [Pin] {
        pins.filter { version == .current ? $0.matchesHostname(hostname) : $0.matchesHostnameBeforeDoubleWildcards(hostname) }
    }
}

/// A pin OkHttp's `CertificatePinner.Builder.add` (or the Network Security Config's `<pin>`) would refuse
/// with IllegalArgumentException; the description names the bad value.
public enum CertificatePinnerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A `*` anywhere but a leading `*.` or `**.`, or not a host name after it.
    case unexpectedPattern(String)
    /// Neither `sha256/` nor `sha1/`.
    case unknownHashAlgorithm(String)
    /// The text after the prefix is not base64.
    case invalidPinHash(String)
    /// A Network Security Config `<pin digest=…>` other than SHA-256.
    case unsupportedDigest(String)

    public var description: String {
        switch self {
        case .unexpectedPattern(let pattern): "Unexpected pattern: \(pattern)"
        case .unknownHashAlgorithm(let pin): "pins must start with 'sha256/' or 'sha1/': \(pin)"
        case .invalidPinHash(let pin): "Invalid pin hash: \(pin)"
        case .unsupportedDigest(let digest): "Unsupported pin digest algorithm: \(digest) (only SHA-256)"
        }
    }
}
