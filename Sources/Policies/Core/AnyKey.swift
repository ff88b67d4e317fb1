/// Any key, so a decoder can list the keys a mapping really has (typed containers drop unknown ones).
package struct AnyKey: CodingKey {
    package let stringValue: String
    package let intValue: Int?

    package init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    package init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }
}
