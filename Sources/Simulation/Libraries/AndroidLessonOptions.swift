import Policies

/// `client.android`: the app's manifest and its Network Security Config's pin-set expiry, which Android's
/// Network Security Config and OkHttp (on Android's default trust) read.
public struct AndroidLessonOptions: LessonOptions {
    public static let key = "android"

    /// `targetSdkVersion` (default a current SDK, at most 37): 23 or lower trusts user-installed CAs by default, 28 and
    /// later refuse cleartext by default, 35 and later refuse TLS 1.0 and 1.1.
    public var targetSdkVersion = NetworkSecurityConfig.defaultTargetSdkVersion
    /// `pinSetExpiration` (yyyy-MM-dd): the Network Security Config's `<pin-set expiration>`.
    public var pinSetExpiration: String?

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable { case targetSdkVersion, pinSetExpiration }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        targetSdkVersion = try container.decodeValueIfPresent(Int.self, forKey: .targetSdkVersion) ?? NetworkSecurityConfig.defaultTargetSdkVersion
        let latest = NetworkSecurityConfig.latestTargetSdkVersion
        if !(1...latest).contains(targetSdkVersion) {
            throw DecodingError.dataCorruptedError(
                forKey: .targetSdkVersion, in: container, debugDescription: "expected an Android API level from 1 to \(latest), found \(targetSdkVersion)")
        }
        pinSetExpiration = try container.decodeValueIfPresent(String.self, forKey: .pinSetExpiration)
        if let pinSetExpiration, CalendarDay.date(pinSetExpiration) == nil {
            throw DecodingError.dataCorruptedError(
                forKey: .pinSetExpiration, in: container, debugDescription: "expected a date as yyyy-MM-dd, found '\(pinSetExpiration)'")
        }
    }
}
