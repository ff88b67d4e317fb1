import Foundation

/// Structure-aware mutations of valid inputs for the fuzz tests that run in the suite: lessons are changed
/// the ways a careless or hostile author would change them (a key deleted or repeated, a value of the
/// wrong type, a huge number, an alias, a control character, a cut), certificates and `.p12` files the
/// ways a broken download or a hostile file would. The same seed gives the same inputs on every machine,
/// so a failure names an input that can be made again.
public struct InputMutator {
    private var random: SplitMix64

    public init(seed: UInt64) { random = SplitMix64(seed: seed) }

    // MARK: - YAML lessons

    /// Values of every wrong kind, and values at or past a limit.
    private static let values = [
        "{a: 1}", "[x, y]", "[]", "{}", "''", "~", "null", "true", "-1", "0", "1.5", "99999999999999999999999", "-9223372036854775808",
        "9223372036854775807", "\"\\u0007\\u001B[2Jbell\"", "\"\\0\"", "'it''s'", "|\n  block\n  text", ">-\n  folded", "!!binary aGVsbG8=",
        "2026-13-45T99:99:99Z", "\"1970-01-01T00:00:00Z\"", "\"9999-12-31T23:59:59Z\"", "*.bank.test", "\"*\"", "bank..test", "\"127.0.0.1\"",
        "\"::1\"", "'\(String(repeating: "a", count: 300))'", String(repeating: "b", count: 5_000), "[\(String(repeating: "n.bank.test, ", count: 150))x]",
        "rsa3072", "rsa2048", "p256", "system", "userInstalled", "forge", "present", "none", "self",
    ]

    /// Lines that break YAML's syntax or use its rarer features.
    private static let fragments = [
        ":", "[", "{", "]", "- ", "? ", "|", ">", "%YAML 1.1", "---", "...", "!tag ", "&anchor ", "*undefined", "<<: *undefined", "\t",
        "# comment", "'unclosed", "\"unclosed", "key: value: value", "- - - x", "{a: [b, {c: d}]}",
    ]

    /// Control characters and other bytes that should never reach a terminal or a parser unannounced.
    private static let controls = ["\u{0}", "\u{7}", "\u{1B}[2J", "\u{1B}]0;pwned\u{7}", "\r", "\u{FEFF}", "\u{85}", "\u{2028}", "\u{202E}", "\u{E000}"]

    public mutating func scenario(from lesson: String) -> [UInt8] {
        var lines = lesson.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for _ in 0..<int(1...3) { mutate(&lines) }
        var bytes = Array(lines.joined(separator: "\n").utf8)
        if chance(8), !bytes.isEmpty { bytes = Array(bytes.prefix(int(0...bytes.count - 1))) }
        if chance(10) { flipBits(&bytes) }
        if chance(16), !bytes.isEmpty { bytes.insert(pick([0xFF, 0xC3, 0xE2, 0x80]), at: int(0...bytes.count - 1)) }
        return bytes
    }

    private mutating func mutate(_ lines: inout [String]) {
        guard !lines.isEmpty else {
            lines = [pick(Self.fragments)]
            return
        }
        let index = int(0...lines.count - 1)
        switch int(0...9) {
        case 0:
            lines.remove(at: index)
        case 1:
            lines.insert(lines[index], at: index)
        case 2:
            if let colon = lines[index].firstIndex(of: ":") { lines[index] = String(lines[index][...colon]) + " " + pick(Self.values) }
        case 3:
            lines.swapAt(index, int(0...lines.count - 1))
        case 4:
            lines[index] = pick(["", " ", "  ", "\t"]) + (chance(2) ? String(lines[index].drop { $0 == " " }) : lines[index])
        case 5:
            alias(&lines, index)
        case 6:
            let line = lines[index]
            let at = line.index(line.startIndex, offsetBy: int(0...line.count))
            lines[index] = String(line[..<at]) + pick(Self.controls) + String(line[at...])
        case 7:
            lines.insert(pick(["surprise: 1", "  surprise: 1", "    surprise: [1]", "world:", "version: 3"]), at: index)
        case 8:
            lines.insert(pick(Self.fragments), at: index)
        default:
            lines[index] = String(lines[index].reversed())
        }
    }

    /// An anchor on one value and an alias of it elsewhere, an alias of nothing, or nested aliases that
    /// would stand for millions of values.
    private mutating func alias(_ lines: inout [String], _ index: Int) {
        let values = lines.indices.filter { lines[$0].contains(": ") && !lines[$0].hasSuffix(":") }
        switch int(0...2) {
        case 0 where values.count >= 2:
            let (from, to) = (pick(values), pick(values))
            lines[from] = lines[from].replacingFirst(": ", with: ": &shared ")
            if let colon = lines[to].firstIndex(of: ":") { lines[to] = String(lines[to][...colon]) + " *shared" }
        case 1:
            if let colon = lines[index].firstIndex(of: ":") { lines[index] = String(lines[index][...colon]) + " *nothing" }
        default:
            var bomb = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
            for level in 1...7 { bomb.append("l\(level): &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ", ") + "]") }
            lines.insert(contentsOf: bomb + [pick(["? *l7", "  dnsNames: *l7", "*l7 : x", "- *l7"]), ": 1"], at: index)
        }
    }

    // MARK: - Certificates, keys and .p12 files

    public mutating func binary(from input: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0..<int(1...3) where !bytes.isEmpty {
            let index = int(0...bytes.count - 1)
            switch int(0...8) {
            case 0:
                flipBits(&bytes)
            case 1:
                bytes = Array(bytes.prefix(index))
            case 2:
                bytes.removeSubrange(index..<min(bytes.count, index + int(1...64)))
            case 3:
                bytes.insert(contentsOf: bytes[index..<min(bytes.count, index + int(1...256))], at: int(0...bytes.count))
            case 4:
                for at in (0..<int(1...8)).map({ _ in int(0...bytes.count - 1) }) { bytes[at] = pick([0x00, 0xFF, 0x7F, 0x80, 0x30, 0x02]) }
            case 5:
                // A DER length at or past every bound: long form with four 0xFF bytes, indefinite, or zero.
                if let header = bytes[index...].firstIndex(where: { $0 == 0x30 || $0 == 0x02 || $0 == 0x04 }), header + 1 < bytes.count {
                    bytes.replaceSubrange((header + 1)...(header + 1), with: pick([[0x84, 0xFF, 0xFF, 0xFF, 0xFF], [0x80], [0x00], [0x82, 0x7F, 0xFF]]))
                }
            case 6:
                bytes += pick([Array("-----BEGIN CERTIFICATE-----\n".utf8), Array("\n-----END CERTIFICATE-----\n".utf8), [0x30, 0x80], input])
            case 7:
                let headers = ["CERTIFICATE", "PRIVATE KEY", "X509 CRL", "TRUSTED CERTIFICATE", "CERTIFICATE REQUEST", ""]
                bytes = Array(String(decoding: bytes, as: UTF8.self).replacingFirst("CERTIFICATE", with: pick(headers)).utf8)
            default:
                bytes = Array(repeating: input, count: int(2...16)).flatMap { $0 }
            }
        }
        return bytes
    }

    // MARK: - Randomness

    private mutating func flipBits(_ bytes: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        for _ in 0..<int(1...8) { bytes[int(0...bytes.count - 1)] ^= 1 << UInt8(int(0...7)) }
    }

    private mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    private mutating func chance(_ oneIn: Int) -> Bool { int(1...oneIn) == 1 }
    private mutating func pick<T>(_ choices: [T]) -> T { choices[int(0...choices.count - 1)] }
}

/// SplitMix64: small, fast and the same everywhere, unlike the system generator.
public struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
