import Foundation

/// A day written yyyy-MM-dd, as pin expirations are (TrustKit's `TSKExpirationDate`, Android's `<pin-set
/// expiration>`): midnight UTC of that day.
public enum CalendarDay {
    /// Midnight UTC of `text`, or nil unless it is exactly four, two and two ASCII digits naming a real day
    /// (2027-02-30 is no date: both libraries parse strictly).
    public static func date(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }
}
