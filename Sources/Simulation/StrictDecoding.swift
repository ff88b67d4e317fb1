import Foundation

/// Any key, so a decoder can list the keys a mapping really has (typed containers drop unknown ones).
struct AnyKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }
}

extension Decoder {
    /// A keyed container that refuses keys `Keys` does not name: a misspelt key in a lesson file is an
    /// error that names it, never a setting silently left at its default.
    func strictContainer<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws -> KeyedDecodingContainer<Keys> {
        let known = Keys.allCases.map(\.stringValue)
        let all = try container(keyedBy: AnyKey.self)
        if let unknown = all.allKeys.first(where: { !known.contains($0.stringValue) }) {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath + [unknown], debugDescription: "unknown key (expected one of: \(known.sorted().joined(separator: ", ")))"))
        }
        return try container(keyedBy: Keys.self)
    }
}

extension KeyedDecodingContainer {
    /// An ISO-8601 time such as 2026-06-01T00:00:00Z.
    func decodeTime(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        guard let date = ISO8601DateFormatter().date(from: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "'\(text)' is not an ISO-8601 time such as 2026-06-01T00:00:00Z")
        }
        return date
    }

    func decodeTimeIfPresent(forKey key: Key) throws -> Date? {
        try contains(key) ? decodeTime(forKey: key) : nil
    }

    /// A string that must be one of `choices`.
    func decodeChoice<T>(_ choices: [String: T], forKey key: Key) throws -> T {
        let text = try decode(String.self, forKey: key)
        guard let value = choices[text] else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "'\(text)' is not one of: \(choices.keys.sorted().joined(separator: ", "))")
        }
        return value
    }
}
