import Policies

extension TraceStep.Check {
    /// The checks a `decidingCheck:` may name: those of the libraries the scenario is read with.
    static func choices(for decoder: Decoder) -> [String: Self] {
        (decoder.userInfo[.clientLibraries] as? ClientLibraries ?? .builtIn).checkChoices
    }
}
