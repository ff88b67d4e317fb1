import Policies

/// A Certificate Transparency log of the world (`world.logs`): mitmsim runs it with a key of its own.
public struct LogSpec: Sendable, Decodable, Equatable {
    public var id: String
    /// Who runs it: Apple's policy counts a leaf's SCTs per operator.
    public var operatorName: String
    /// True when the device's log list holds it, so its SCTs count; false for a log the device has never heard of.
    public var knownByDevice: Bool

    public init(id: String, operatorName: String, knownByDevice: Bool = true) {
        self.id = id
        self.operatorName = operatorName
        self.knownByDevice = knownByDevice
    }

    /// The logs of a world that names none but has a root built into iOS: three, from two operators, so a leaf of up
    /// to 825 days gets the SCTs Apple requires (three, at most two per operator; two from two operators up to 180 days).
    public static let defaults = [
        LogSpec(id: "north-1", operatorName: "North Logs"), LogSpec(id: "north-2", operatorName: "North Logs"),
        LogSpec(id: "south-1", operatorName: "South Logs"),
    ]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id
        case operatorName = "operator"
        case knownByDevice
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        id = try container.decodeValue(String.self, forKey: .id)
        operatorName = try container.decodeValue(String.self, forKey: .operatorName)
        knownByDevice = try container.decodeValueIfPresent(Bool.self, forKey: .knownByDevice) ?? true
    }
}
