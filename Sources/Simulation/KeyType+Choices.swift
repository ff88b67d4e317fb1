import PKI

extension KeyType {
    static let choices = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}
