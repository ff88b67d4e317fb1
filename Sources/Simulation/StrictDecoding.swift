import Foundation
import Yams

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
    /// error that names it, never a setting silently left at its default. Keys in `unlisted` are accepted
    /// but left out of the error's list (the caller refuses them with a reason, such as a library version without them).
    /// Keys in `extra` are accepted and listed too (keys the caller reads itself: a library's lesson options).
    /// Keys in `ignoring` are passed over (an audit reads Apple's ATS keys that mitmsim does not model, and warns).
    func strictContainer<Keys: CodingKey & CaseIterable>(
        _ keys: Keys.Type, unlisted: [Keys] = [], listing extra: [String] = [], ignoring: Set<String> = []
    ) throws -> KeyedDecodingContainer<Keys> {
        let known = Keys.allCases.map(\.stringValue) + extra + ignoring
        let all = try container(keyedBy: AnyKey.self)
        if let unknown = all.allKeys.first(where: { !known.contains($0.stringValue) }) {
            let listed = (Keys.allCases.map(\.stringValue).filter { name in !unlisted.contains { $0.stringValue == name } } + extra).sorted()
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath + [unknown], debugDescription: "unknown key (expected one of: \(listed.joined(separator: ", ")))"))
        }
        return try container(keyedBy: Keys.self)
    }
}

extension KeyedDecodingContainer {
    /// A string, a whole number or true/false. Where a list or mapping stands instead, Yams reports the kind
    /// of YAML node it wanted ("Scalar"); this reports the type the scenario needs, so the message can say
    /// "expected a string, found a mapping".
    func decodeValue<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try naming(T.self) { try decode(T.self, forKey: key) }
    }

    func decodeValueIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try naming(T.self) { try decodeIfPresent(T.self, forKey: key) }
    }

    /// A list of strings, empty when the key is absent.
    func decodeStrings(forKey key: Key) throws -> [String] {
        try naming([String].self, element: String.self) { try decodeIfPresent([String].self, forKey: key) } ?? []
    }

    /// Runs `decode`, naming `type` in a type mismatch of the value itself (or `element` in one of its elements).
    private func naming<T>(_ type: Any.Type, element: Any.Type? = nil, _ decode: () throws -> T) throws -> T {
        do {
            return try decode()
        } catch DecodingError.typeMismatch(let wanted, let context) where wanted is Node.Scalar.Type || wanted is Node.Sequence.Type {
            switch (context.codingPath.count - codingPath.count, element) {
            case (1, _): throw DecodingError.typeMismatch(type, context)
            case (2, let element?): throw DecodingError.typeMismatch(element, context)
            default: throw DecodingError.typeMismatch(wanted, context)
            }
        }
    }

    /// An ISO-8601 time such as 2026-06-01T00:00:00Z.
    func decodeTime(forKey key: Key) throws -> Date {
        let text = try decodeValue(String.self, forKey: key)
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
        let text = try decodeValue(String.self, forKey: key)
        guard let value = choices[text] else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "'\(text)' is not one of: \(choices.keys.sorted().joined(separator: ", "))")
        }
        return value
    }
}
