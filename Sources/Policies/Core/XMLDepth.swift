/// How deep an XML document's elements nest, counted before any XML parser sees it: Foundation's reader
/// recurses once per nested element, so a file nested thousands deep would overflow the stack.
package enum XMLDepth {
    /// How deep elements nest in `bytes` read as XML, never less than the truth: a comment, a CDATA section, a
    /// declaration or a quoted attribute value is skipped whole, so nothing in them can close an element.
    package static func deepest(in bytes: [UInt8]) -> Int {
        func find(_ marker: String, from start: Int) -> Int {
            let marker = Array(marker.utf8)
            var index = start
            while index + marker.count <= bytes.count, !bytes[index..<index + marker.count].elementsEqual(marker) { index += 1 }
            return index + marker.count
        }
        var (depth, deepest, index) = (0, 0, 0)
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            let rest = bytes[index...]
            if rest.starts(with: "<!--".utf8) {
                index = find("-->", from: index + 4)
            } else if rest.starts(with: "<![CDATA[".utf8) {
                index = find("]]>", from: index + 9)
            } else if rest.starts(with: "<?".utf8) {
                index = find("?>", from: index + 2)
            } else if rest.starts(with: "<!".utf8) || rest.starts(with: "</".utf8) {
                if rest.starts(with: "</".utf8) { depth -= 1 }
                index = find(">", from: index + 2)
            } else {
                // A start tag: up to its `>`, outside quoted attribute values; `/>` makes it empty.
                var (end, quote): (Int, UInt8?) = (index + 1, nil)
                while end < bytes.count, quote != nil || bytes[end] != UInt8(ascii: ">") {
                    if let open = quote {
                        if bytes[end] == open { quote = nil }
                    } else if bytes[end] == UInt8(ascii: "\"") || bytes[end] == UInt8(ascii: "'") {
                        quote = bytes[end]
                    }
                    end += 1
                }
                if bytes[end - 1] != UInt8(ascii: "/") {
                    depth += 1
                    deepest = max(deepest, depth)
                }
                index = end + 1
            }
        }
        return deepest
    }
}
