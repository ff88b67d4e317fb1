import Policies

extension TraceStep.Check {
    static let choices = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}
