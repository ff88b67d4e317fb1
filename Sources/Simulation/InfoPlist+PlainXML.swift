import Foundation
import Policies

extension InfoPlist {
    /// `root`, as libxml2 read it, written again for Foundation's plist reader: elements without attributes,
    /// text escaped, no comment, DTD or processing instruction; a container keeps only its elements. Each start
    /// tag is put on the line it was read from, so the reader's line numbers are the file's. Nothing in it can
    /// nest deeper than the tree it is written from.
    static func plainXML(_ root: XMLTree.Element) -> Data {
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"#
        var line = 1
        func write(_ element: XMLTree.Element) {
            if element.line > line {
                text += String(repeating: "\n", count: element.line - line)
                line = element.line
            }
            guard element.children.isEmpty else {
                text += "<\(element.name)>"
                element.children.forEach(write)
                text += "</\(element.name)>"
                return
            }
            guard !element.text.isEmpty else {
                text += "<\(element.name)/>"
                return
            }
            let escaped = element.text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
            text += "<\(element.name)>\(escaped)</\(element.name)>"
            line += element.text.reduce(0) { $1.isNewline ? $0 + 1 : $0 }
        }
        write(root)
        return Data(text.utf8)
    }
}
