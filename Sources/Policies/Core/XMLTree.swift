import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A small XML file (a network security config, an Info.plist) read into elements by libxml2, through
/// Foundation's `XMLParser`, within bounds that hold whatever the bytes look like.
///
/// The encoding is decided first, as libxml2 decides it (a byte order mark, the first four bytes, the XML
/// declaration), and only UTF-8 and UTF-16 are let through: the text checked for a DTD is then the text the
/// parser reads, in every encoding it is given. Nesting is counted by the parser's own start-tag events, and
/// the parse stops at the first element deeper than the limit, so no quoting, comment or section can hide a
/// level from the count. libxml2's push parser, which `XMLParser` drives, keeps open elements on a heap stack.
package enum XMLTree {
    /// An element as libxml2 read it: its text is its character data and CDATA sections, in order.
    package final class Element {
        package let name: String
        package let attributes: [String: String]
        /// The line of the start tag's end, as libxml2 counts lines.
        package let line: Int
        package fileprivate(set) var text = ""
        package fileprivate(set) var children: [Element] = []

        init(name: String, attributes: [String: String], line: Int) {
            self.name = name
            self.attributes = attributes
            self.line = line
        }
    }

    /// What a file may hold before its root element.
    package enum Prolog {
        /// No DTD at all (a network security config).
        case noDoctype
        /// A DOCTYPE naming an external DTD, which is never loaded, but no entity declared (an Info.plist
        /// carries Apple's `<!DOCTYPE plist PUBLIC …>`).
        case externalDoctypeOnly
    }

    /// The root element of `bytes`, refusing a file that is not well-formed, is in another encoding than
    /// UTF-8 or UTF-16, declares what `prolog` does not allow, nests deeper than `depthLimit`, or has a second root.
    /// `kind` names the file in a refusal ("an Info.plist").
    package static func root(of bytes: [UInt8], depthLimit: Int, prolog: Prolog, kind: String) throws(ConfigurationError) -> Element {
        let text = try decoded(bytes)
        // Markup is never made by character references or entities left undeclared, so in the decoded text
        // every declaration the parser would act on is spelt out.
        if text.contains("<!ENTITY") || (prolog == .noDoctype && text.contains("<!DOCTYPE")) {
            throw ConfigurationError(
                path: "",
                reason: (prolog == .noDoctype ? "declares a DTD or an entity" : "declares an entity")
                    + ", which \(kind) never needs (mitmsim refuses them: entities are how XML bombs work)")
        }
        let builder = Builder(depthLimit: depthLimit, kind: kind)
        let parser = XMLParser(data: Data(bytes))
        parser.shouldResolveExternalEntities = false
        parser.externalEntityResolvingPolicy = .never
        parser.delegate = builder
        let parsed = parser.parse()
        if let refusal = builder.refusal { throw refusal }
        // libxml2 recovers from some errors, and Foundation on Linux can report success for a file that ends inside an
        // element: any error reported, or an element left open, is a refusal.
        guard parsed, builder.error == nil, let root = builder.root, builder.open.isEmpty else {
            let code = (builder.error?.error ?? parser.parserError).map { ($0 as NSError).code }
            let reason = code.map(Self.wording) ?? (builder.root == nil ? "no root element" : "an element is never closed")
            throw ConfigurationError(path: "line \(builder.error?.line ?? parser.lineNumber)", reason: "is not well-formed XML (\(reason))")
        }
        return root
    }

    /// libxml2's error `code` in words: Foundation on Linux passes on the code alone. The names are libxml2's
    /// (`xmlParserErrors` in libxml/xmlerror.h); the rarer ones are given by number.
    static func wording(_ code: Int) -> String {
        let words = [
            4: "the document is empty", 5: "more follows the root element; an XML file has one root element", 9: "a character XML does not allow",
            23: "an entity reference without its ';'", 26: "an entity that is not declared", 38: "a '<' inside an attribute value",
            41: "an attribute without a value", 42: "an attribute given twice", 45: "a comment that is never closed",
            63: "a CDATA section that is never closed",
            68: "a name is missing", 73: "a '>' is missing", 76: "an end tag that does not match its start tag", 77: "the data ends inside a tag",
        ]
        return words[code] ?? "libxml2 error \(code)"
    }

    /// `bytes` decoded in the encoding libxml2 would read them in; any other encoding than UTF-8 or UTF-16 is refused.
    static func decoded(_ bytes: [UInt8]) throws(ConfigurationError) -> String {
        func refuse(_ reason: String) -> ConfigurationError { ConfigurationError(path: "", reason: reason) }
        let head = Array(bytes.prefix(4)) + [UInt8](repeating: 0xFF, count: max(0, 4 - bytes.count))
        let encoding: String.Encoding
        var body = bytes[...]
        switch (head[0], head[1], head[2], head[3]) {
        case (0x00, 0x00, _, _), (_, _, 0x00, 0x00), (0x4C, 0x6F, 0xA7, 0x94):
            throw refuse("is in UCS-4 or EBCDIC; mitmsim reads XML written in UTF-8 or UTF-16")
        case (0xFE, 0xFF, _, _), (0x00, 0x3C, 0x00, 0x3F): encoding = .utf16BigEndian
        case (0xFF, 0xFE, _, _), (0x3C, 0x00, 0x3F, 0x00): encoding = .utf16LittleEndian
        default: encoding = .utf8
        }
        if [0xFE, 0xFF].contains(head[0]) { body = body.dropFirst(2) }
        if head[0] == 0xEF, head[1] == 0xBB, head[2] == 0xBF { body = body.dropFirst(3) }
        let family = encoding == .utf8 ? "UTF-8" : "UTF-16"
        let text: String?
        if encoding == .utf8 {
            text = String(validating: body, as: UTF8.self)
        } else {
            let (high, low) = encoding == .utf16BigEndian ? (0, 1) : (1, 0)
            let units = stride(from: body.startIndex, to: body.endIndex - 1, by: 2).map { (index: Int) -> UInt16 in
                UInt16(body[index + high]) << 8 | UInt16(body[index + low])
            }
            text = body.count.isMultiple(of: 2) ? String(validating: units, as: UTF16.self) : nil
        }
        guard let text else { throw refuse("is not valid \(family) text") }
        // The XML declaration, if any, may only name the encoding the bytes are in: libxml2 would switch to the one named.
        if text.hasPrefix("<?xml"), let end = text.range(of: "?>") {
            let declaration = text[..<end.lowerBound]
            if let name = declaration.range(of: #"encoding\s*=\s*["'][^"']*["']"#, options: .regularExpression).map({ declaration[$0] }) {
                let value = name.drop { $0 != "\"" && $0 != "'" }.dropFirst().dropLast().uppercased()
                let allowed = encoding == .utf8 ? ["UTF-8", "UTF8"] : ["UTF-16", "UTF16"]
                guard allowed.contains(value) else {
                    throw refuse("declares encoding '\(value)' but is written in \(family); mitmsim reads XML written in UTF-8 or UTF-16, declared as such")
                }
            }
        }
        return text
    }

    /// Builds the elements from `XMLParser`'s events, and stops the parse at the first element too deep or the second root.
    private final class Builder: NSObject, XMLParserDelegate {
        let depthLimit: Int
        let kind: String
        var root: Element?
        var open: [Element] = []
        /// Why the file is refused beyond what libxml2 reports.
        var refusal: ConfigurationError?
        /// The first error libxml2 reported, even one it recovered from.
        var error: (error: Error, line: Int)?

        init(depthLimit: Int, kind: String) {
            self.depthLimit = depthLimit
            self.kind = kind
        }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            guard refusal == nil else { return }
            let element = Element(name: elementName, attributes: attributes, line: parser.lineNumber)
            if open.count == depthLimit {
                stop(
                    parser, "line \(element.line), <\(elementName)>",
                    "nests elements more than \(depthLimit) deep, the most mitmsim reads (\(kind) needs fewer than 10)")
            } else if let parent = open.last {
                parent.children.append(element)
            } else if root != nil {
                stop(parser, "line \(element.line), <\(elementName)>", "is a second root element (an XML file has one)")
            } else {
                root = element
            }
            open.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            if !open.isEmpty { open.removeLast() }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { open.last?.text += string }

        func parser(_ parser: XMLParser, foundCDATA block: Data) { open.last?.text += String(decoding: block, as: UTF8.self) }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            if error == nil { error = (parseError, parser.lineNumber) }
        }

        private func stop(_ parser: XMLParser, _ path: String, _ reason: String) {
            refusal = ConfigurationError(path: path, reason: reason)
            parser.abortParsing()
        }
    }
}
