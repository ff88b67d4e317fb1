/// Why a benchmark could not produce its figures; the description says what went wrong where.
public enum BenchmarkError: Error, CustomStringConvertible {
    /// An exchange through one path did not return the bank's answer, so its timing would mean nothing.
    case exchangeFailed(path: String, reason: String)
    /// Another proxy was started but never answered on its port.
    case noAnswer(name: String, port: UInt16)
    /// The console benchmark was given an empty catalog.
    case noLessons
    /// The external load client did not run or printed no tally.
    case loadClientFailed(reason: String)

    public var description: String {
        switch self {
        case .exchangeFailed(let path, let reason): "an exchange through \(path) failed: \(reason)"
        case .noAnswer(let name, let port): "\(name) did not answer on 127.0.0.1:\(port)"
        case .noLessons: "no lessons"
        case .loadClientFailed(let reason): "the external load client failed: \(reason)"
        }
    }
}
