import Policies

/// `client.trustKit`, with TrustKit's own key names: its enforcement and expiry.
public struct TrustKitLessonOptions: LessonOptions {
    public static let key = "trustKit"

    /// `TSKEnforcePinning` (default YES): NO is report-only.
    public var enforcePinning = true
    /// `TSKExpirationDate` (yyyy-MM-dd, UTC): after it the pins are not checked.
    public var expirationDate: String?

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case enforcePinning = "TSKEnforcePinning"
        case expirationDate = "TSKExpirationDate"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        enforcePinning = try container.decodeValueIfPresent(Bool.self, forKey: .enforcePinning) ?? true
        expirationDate = try container.decodeValueIfPresent(String.self, forKey: .expirationDate)
        if let expirationDate, CalendarDay.date(expirationDate) == nil {
            throw DecodingError.dataCorruptedError(
                forKey: .expirationDate, in: container, debugDescription: "expected a date as yyyy-MM-dd, found '\(expirationDate)'")
        }
    }
}
