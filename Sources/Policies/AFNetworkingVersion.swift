/// The AFNetworking releases whose `AFSecurityPolicy` a client can run, by the names scenario files,
/// `--library` and the matrix use. Each behaves as that release's `AFSecurityPolicy.m` does.
public enum AFNetworkingVersion: String, Hashable, Sendable, CaseIterable, Comparable {
    /// 4.0.x, and 3.x, whose decision is the same.
    case v4 = "afnetworking-4"
    case v2_6 = "afnetworking-2.6"
    case v2_5_3 = "afnetworking-2.5.3"
    case v2_5_2 = "afnetworking-2.5.2"
    case v2_5_1 = "afnetworking-2.5.1"
    case v2_5_0 = "afnetworking-2.5.0"
    case v2_2 = "afnetworking-2.2"
    case v2_1 = "afnetworking-2.1"
    case v2_0 = "afnetworking-2.0"

    /// Older releases first. Every case is in `allCases`, so both indices exist.
    public static func < (lhs: AFNetworkingVersion, rhs: AFNetworkingVersion) -> Bool {
        allCases.firstIndex(of: lhs)! > allCases.firstIndex(of: rhs)!
    }
}
