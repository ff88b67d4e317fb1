/// An optional that a JSON report writes as `null` instead of leaving its key out (synthesized `Encodable`
/// skips nil optionals), so every report keeps the same keys and a reader can rely on them.
public struct Nullable<Wrapped: Encodable>: Encodable {
    public let value: Wrapped?

    public init(_ value: Wrapped?) { self.value = value }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}
