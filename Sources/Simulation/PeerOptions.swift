import Policies

/// The settings of a peer library that a lesson's pins do not say: TrustKit's enforcement and expiry, and the
/// Android app's target SDK and pin-set expiry. Each applies wherever that model runs in the lesson (its
/// `client.library`, or a row of `compare`), so a comparison's rows share them.
public struct PeerOptions: Sendable, Equatable {
    /// `client.trustKit.TSKEnforcePinning` (default YES): NO is report-only.
    public var trustKitEnforcePinning = true
    /// `client.trustKit.TSKExpirationDate` (yyyy-MM-dd, UTC): after it the pins are not checked.
    public var trustKitExpirationDate: String?
    /// `client.android.targetSdkVersion` (default a current SDK): 23 or lower trusts user-installed CAs by default.
    public var androidTargetSdkVersion = NetworkSecurityConfig.defaultTargetSdkVersion
    /// `client.android.pinSetExpiration` (yyyy-MM-dd): the Network Security Config's `<pin-set expiration>`.
    public var androidPinSetExpiration: String?

    public init() {}
}

extension PeerOptions {
    /// `client.trustKit`, with TrustKit's own key names.
    struct TrustKitKeys: Decodable {
        let enforcePinning: Bool?
        let expirationDate: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case enforcePinning = "TSKEnforcePinning"
            case expirationDate = "TSKExpirationDate"
        }

        init(from decoder: Decoder) throws {
            let container = try decoder.strictContainer(CodingKeys.self)
            enforcePinning = try container.decodeValueIfPresent(Bool.self, forKey: .enforcePinning)
            expirationDate = try container.decodeValueIfPresent(String.self, forKey: .expirationDate)
            if let expirationDate, CalendarDay.date(expirationDate) == nil {
                throw DecodingError.dataCorruptedError(
                    forKey: .expirationDate, in: container, debugDescription: "expected a date as yyyy-MM-dd, found '\(expirationDate)'")
            }
        }
    }

    /// `client.android`: the app's manifest and its Network Security Config's pin-set expiry.
    struct AndroidKeys: Decodable {
        let targetSdkVersion: Int?
        let pinSetExpiration: String?

        enum CodingKeys: String, CodingKey, CaseIterable { case targetSdkVersion, pinSetExpiration }

        init(from decoder: Decoder) throws {
            let container = try decoder.strictContainer(CodingKeys.self)
            targetSdkVersion = try container.decodeValueIfPresent(Int.self, forKey: .targetSdkVersion)
            if let targetSdkVersion, !(1...100).contains(targetSdkVersion) {
                throw DecodingError.dataCorruptedError(
                    forKey: .targetSdkVersion, in: container, debugDescription: "expected an Android API level from 1 to 100, found \(targetSdkVersion)")
            }
            pinSetExpiration = try container.decodeValueIfPresent(String.self, forKey: .pinSetExpiration)
            if let pinSetExpiration, CalendarDay.date(pinSetExpiration) == nil {
                throw DecodingError.dataCorruptedError(
                    forKey: .pinSetExpiration, in: container, debugDescription: "expected a date as yyyy-MM-dd, found '\(pinSetExpiration)'")
            }
        }
    }
}
