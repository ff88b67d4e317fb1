import Policies

/// A client model by the name `client.library`, a scenario's `clients:` and `mitmsim compare` give it:
/// an AFNetworking release (the whole iOS client: ATS, the challenge handler, `AFSecurityPolicy`) or one of
/// the peer libraries. `allCases` is the order: the AFNetworking releases newest first, then the peers.
// swift-format-ignore: AlwaysUseLowerCamelCase
// okhttp3_1_1 reads as the release it is, as AFNetworkingVersion's cases do.
public enum ClientModelName: Hashable, Sendable, CaseIterable, RawRepresentable, CustomStringConvertible {
    /// The iOS client with this release's `AFSecurityPolicy`.
    case afnetworking(AFNetworkingVersion)
    /// Alamofire 5's `ServerTrustManager` and trust evaluators.
    case alamofire5
    /// Alamofire 4's `ServerTrustPolicy`.
    case alamofire4
    /// TrustKit's `TSKPinnedDomains`.
    case trustkit
    /// OkHttp's `CertificatePinner` as fixed in 2.7.4 / 3.1.2 (pins checked over the cleaned chain).
    case okhttp
    /// OkHttp's `CertificatePinner` before that fix, checking pins over the presented chain (CVE-2016-2402).
    case okhttp3_1_1
    /// Android's Network Security Config.
    case androidNSC
    /// curl with `--pinnedpubkey`.
    case curl

    public static let allCases: [ClientModelName] =
        AFNetworkingVersion.allCases.map(afnetworking) + [.alamofire5, .alamofire4, .trustkit, .okhttp, .okhttp3_1_1, .androidNSC, .curl]

    /// "afnetworking-2.5.1", "alamofire-5", "okhttp-3.1.1", "android-nsc": the name files and commands write.
    public var rawValue: String {
        switch self {
        case .afnetworking(let release): release.rawValue
        case .alamofire5: "alamofire-5"
        case .alamofire4: "alamofire-4"
        case .trustkit: "trustkit"
        case .okhttp: "okhttp"
        case .okhttp3_1_1: "okhttp-3.1.1"
        case .androidNSC: "android-nsc"
        case .curl: "curl"
        }
    }

    public init?(rawValue: String) {
        guard let name = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = name
    }

    public var description: String { rawValue }

    /// The AFNetworking release, or nil for a peer library.
    public var afnetworking: AFNetworkingVersion? {
        if case .afnetworking(let release) = self { release } else { nil }
    }

    /// "AFNetworking 2.5.1", "OkHttp 3.1.1", "Android Network Security Config": the model as sentences name it.
    public var displayName: String {
        switch self {
        case .afnetworking(let release): release.displayName
        case .alamofire5: "Alamofire 5"
        case .alamofire4: "Alamofire 4"
        case .trustkit: "TrustKit"
        case .okhttp: "OkHttp"
        case .okhttp3_1_1: "OkHttp 3.1.1"
        case .androidNSC: "Android Network Security Config"
        case .curl: "curl"
        }
    }

    /// Every name, in `allCases` order, as error messages list them.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
