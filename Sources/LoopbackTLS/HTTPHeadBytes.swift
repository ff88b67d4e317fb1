/// An HTTP head read as bytes, not strings: the relay looks at every message it forwards, and the
/// benchmark's load client at every response it reads.
enum HTTPHeadBytes {
    /// The most of a head the load client keeps while it looks for the blank line.
    static let longest = 65_536

    /// Where `pattern` first occurs in `bytes`.
    static func firstRange(of pattern: [UInt8], in bytes: ArraySlice<UInt8>) -> Range<Int>? {
        guard bytes.count >= pattern.count else { return nil }
        for start in bytes.startIndex...(bytes.endIndex - pattern.count) where bytes[start] == pattern[0] {
            if bytes[start..<start + pattern.count].elementsEqual(pattern) { return start..<start + pattern.count }
        }
        return nil
    }

    /// The value of the first Content-Length header among `headers` (header lines; a start line is passed over) that is a number.
    static func contentLength(_ headers: ArraySlice<UInt8>) -> Int? {
        let name = Array("content-length:".utf8)
        var rest = headers
        while !rest.isEmpty {
            let lineEnd = firstRange(of: [13, 10], in: rest)
            let line = rest[..<(lineEnd?.lowerBound ?? rest.endIndex)]
            rest = rest[(lineEnd?.upperBound ?? rest.endIndex)...]
            let lowercased = line.prefix(name.count).map { (65...90).contains($0) ? $0 | 0x20 : $0 }
            guard lowercased == name else { continue }
            let isBlank = { (byte: UInt8) in byte == 32 || byte == 9 }
            let value = line.dropFirst(name.count).drop(while: isBlank).reversed().drop(while: isBlank).reversed()
            if !value.isEmpty, value.allSatisfy({ (48...57).contains($0) }), let length = Int(String(decoding: value, as: UTF8.self)) { return length }
        }
        return nil
    }
}
