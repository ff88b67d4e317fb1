extension Decoder {
    /// A keyed container that refuses keys `Keys` does not name: a misspelt key in a lesson file is an
    /// error that names it, never a setting silently left at its default. Keys in `unlisted` are accepted
    /// but left out of the error's list (the caller refuses them with a reason, such as a library version without them).
    /// Keys in `extra` are accepted and listed too (keys the caller reads itself: a library's lesson options).
    /// Keys in `ignoring` are passed over (an audit reads Apple's ATS keys that mitmsim does not model, and warns).
    package func strictContainer<Keys: CodingKey & CaseIterable>(
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
