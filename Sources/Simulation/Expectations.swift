import Policies

/// What the run must show; each is checked and reported.
public struct Expectations: Sendable, Decodable {
    public var trusted: Bool
    public var decidingCheck: TraceStep.Check?
    public var attackerSawPlaintext: Bool
    public var serverReceivedRequest: Bool

    enum CodingKeys: String, CodingKey, CaseIterable { case trusted, decidingCheck, attackerSawPlaintext, serverReceivedRequest }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        trusted = try container.decodeValue(Bool.self, forKey: .trusted)
        decidingCheck =
            try container.contains(.decidingCheck)
            ? container.decodeChoice(TraceStep.Check.choices(for: decoder), forKey: .decidingCheck)
            : nil
        attackerSawPlaintext = try container.decodeValue(Bool.self, forKey: .attackerSawPlaintext)
        serverReceivedRequest = try container.decodeValue(Bool.self, forKey: .serverReceivedRequest)
    }
}
