import Foundation
import PKI
import Policies

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Android's `network_security_config.xml`, as written: the base configuration, the domain configurations
/// (nested ones kept nested), and the debug overrides. Elements and attributes are Android's own names;
/// a value left out is nil here, and Android's defaults are applied by whoever judges with it.
public struct NetworkSecurityConfigFile: Sendable, Equatable {
    /// `<certificates src="…" overridePins="…">` inside `<trust-anchors>`.
    public struct TrustAnchor: Sendable, Equatable {
        /// `system`, `user`, or a raw resource such as `@raw/my_ca`, as written.
        public var source: String
        /// `overridePins` (default false): a chain anchored here skips the pin-set.
        public var overridePins: Bool
    }

    /// `<pin-set expiration="yyyy-MM-dd">` and its `<pin digest="SHA-256">` values.
    public struct PinSet: Sendable, Equatable {
        /// After this day Android stops enforcing the pins (nil: never).
        public var expiration: Date?
        /// Base64 SHA-256 digests of SubjectPublicKeyInfo, as written.
        public var pins: [String]
    }

    /// `<domain includeSubdomains="…">name</domain>`.
    public struct Domain: Sendable, Equatable {
        public var name: String
        public var includesSubdomains: Bool
    }

    /// `<base-config>` or `<domain-config>` (the base has no domains, pins or nested configurations).
    public struct Configuration: Sendable, Equatable {
        public var domains: [Domain] = []
        public var cleartextTrafficPermitted: Bool?
        /// Nil when the element has no `<trust-anchors>` (it inherits its parent's, or Android's default).
        public var trustAnchors: [TrustAnchor]?
        public var pinSet: PinSet?
        /// `<domain-config>` elements inside this one, which inherit what they leave out.
        public var nested: [Configuration] = []
    }

    public var base: Configuration?
    public var domainConfigs: [Configuration]
    /// `<debug-overrides>`'s trust anchors: used only when the app is built debuggable.
    public var debugOverrides: [TrustAnchor]?
    /// Every domain configuration, nested ones after their parent, in file order.
    public var allDomainConfigs: [Configuration] {
        func flatten(_ configuration: Configuration) -> [Configuration] { [configuration] + configuration.nested.flatMap(flatten) }
        return domainConfigs.flatMap(flatten)
    }

    /// Reads the file at `path`; any error is one line naming the file, the line and the element.
    public static func read(_ path: String) throws -> NetworkSecurityConfigFile {
        func refuse(_ where: String, _ reason: String) -> ScenarioError { ScenarioError(file: path, path: `where`, reason: reason) }
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, limit: AuditLimits.configurationBytes, kind: "a network security config")
        } catch {
            throw refuse("", error.reason)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        // Entities and DTDs are refused before parsing: an Android config has none, and they are how XML bombs work.
        if text.contains("<!DOCTYPE") || text.contains("<!ENTITY") {
            throw refuse("", "declares a DTD or an entity, which a network security config never needs (mitmsim refuses them)")
        }
        guard InfoPlist.elementDepth(bytes) <= AuditLimits.xmlDepth else {
            throw refuse("", "nests elements more than \(AuditLimits.xmlDepth) deep (a network security config needs fewer than 10)")
        }
        let tree = ConfigElementTree()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldResolveExternalEntities = false
        parser.delegate = tree
        // Foundation on Linux reports success for a file that ends inside an element, so the tree checks it is closed.
        guard parser.parse(), let root = tree.root, tree.isClosed else {
            let reason =
                parser.parserError.map { ($0 as NSError).localizedDescription } ?? (tree.root == nil ? "no root element" : "an element is never closed")
            throw refuse("line \(parser.lineNumber)", "is not well-formed XML (\(reason))")
        }
        return try Reader(file: path).config(root)
    }
}

/// An XML element as the parser met it: enough to check a small configuration strictly.
final class ConfigElement {
    let name: String
    let attributes: [String: String]
    let line: Int
    var text = ""
    var children: [ConfigElement] = []

    init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }
}

/// Builds `ConfigElement`s from `XMLParser`'s callbacks.
final class ConfigElementTree: NSObject, XMLParserDelegate {
    private(set) var root: ConfigElement?
    private var open: [ConfigElement] = []
    /// True once every element opened has been closed.
    var isClosed: Bool { open.isEmpty }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        let element = ConfigElement(name: elementName, attributes: attributes, line: parser.lineNumber)
        if let parent = open.last { parent.children.append(element) } else { root = element }
        open.append(element)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) { open.removeLast() }

    func parser(_ parser: XMLParser, foundCharacters string: String) { open.last?.text += string }
}

/// Turns the element tree into a `NetworkSecurityConfigFile`, refusing what Android would refuse.
private struct Reader {
    let file: String

    func refuse(_ element: ConfigElement, _ reason: String) -> ScenarioError {
        ScenarioError(file: file, path: "line \(element.line), <\(element.name)>", reason: reason)
    }

    func config(_ root: ConfigElement) throws -> NetworkSecurityConfigFile {
        guard root.name == "network-security-config" else { throw refuse(root, "the root element must be <network-security-config>") }
        try check(root, attributes: [], children: ["base-config", "domain-config", "debug-overrides"])
        var result = NetworkSecurityConfigFile(domainConfigs: [])
        for child in root.children {
            switch child.name {
            case "base-config":
                guard result.base == nil else { throw refuse(child, "appears twice (Android allows one <base-config>)") }
                try check(child, attributes: ["cleartextTrafficPermitted"], children: ["trust-anchors"])
                result.base = try configuration(child)
            case "debug-overrides":
                guard result.debugOverrides == nil else { throw refuse(child, "appears twice (Android allows one <debug-overrides>)") }
                try check(child, attributes: [], children: ["trust-anchors"])
                result.debugOverrides = try configuration(child).trustAnchors ?? []
            default:
                result.domainConfigs.append(try domainConfig(child))
            }
        }
        return result
    }

    func domainConfig(_ element: ConfigElement) throws -> NetworkSecurityConfigFile.Configuration {
        try check(element, attributes: ["cleartextTrafficPermitted"], children: ["domain", "trust-anchors", "pin-set", "domain-config"])
        var result = try configuration(element)
        for child in element.children where child.name == "domain" {
            try check(child, attributes: ["includeSubdomains"], children: [])
            let name = child.text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            guard HostName.isValid(name), !name.contains("*") else { throw refuse(child, "'\(name)' is not a domain name (no scheme, port or wildcard)") }
            result.domains.append(.init(name: name, includesSubdomains: try bool(child, "includeSubdomains") ?? false))
        }
        guard !result.domains.isEmpty else { throw refuse(element, "names no <domain> (Android requires at least one)") }
        for child in element.children where child.name == "pin-set" {
            guard result.pinSet == nil else { throw refuse(child, "appears twice in one <domain-config>") }
            try check(child, attributes: ["expiration"], children: ["pin"])
            let expiration = try child.attributes["expiration"].map { text in
                guard let day = CalendarDay.date(text) else { throw refuse(child, "expiration '\(text)' is not a date written yyyy-MM-dd") }
                return day
            }
            let pins = try child.children.map { pin in
                try check(pin, attributes: ["digest"], children: [])
                guard pin.attributes["digest"] == "SHA-256" else { throw refuse(pin, "digest must be \"SHA-256\" (the only digest Android accepts)") }
                let value = pin.text.trimmingCharacters(in: .whitespacesAndNewlines)
                guard PinDigest.isSHA256Base64(value) else { throw refuse(pin, "'\(value)' is not the base64 of a 32-byte SHA-256 digest") }
                return value
            }
            result.pinSet = .init(expiration: expiration, pins: pins)
        }
        result.nested = try element.children.filter { $0.name == "domain-config" }.map(domainConfig)
        return result
    }

    /// `cleartextTrafficPermitted` and the `<trust-anchors>` of `element`.
    func configuration(_ element: ConfigElement) throws -> NetworkSecurityConfigFile.Configuration {
        var result = NetworkSecurityConfigFile.Configuration(cleartextTrafficPermitted: try bool(element, "cleartextTrafficPermitted"))
        for anchors in element.children where anchors.name == "trust-anchors" {
            guard result.trustAnchors == nil else { throw refuse(anchors, "appears twice in one element") }
            try check(anchors, attributes: [], children: ["certificates"])
            result.trustAnchors = try anchors.children.map { certificates in
                try check(certificates, attributes: ["src", "overridePins"], children: [])
                guard let source = certificates.attributes["src"] else { throw refuse(certificates, "has no src (system, user or @raw/…)") }
                guard source == "system" || source == "user" || source.hasPrefix("@raw/") else {
                    throw refuse(certificates, "src '\(source)' is not system, user or a @raw/ resource")
                }
                return .init(source: source, overridePins: try bool(certificates, "overridePins") ?? false)
            }
        }
        return result
    }

    /// Refuses an attribute or a child element Android does not define there.
    func check(_ element: ConfigElement, attributes: Set<String>, children: Set<String>) throws {
        if let unknown = element.attributes.keys.sorted().first(where: { !attributes.contains($0) }) {
            throw refuse(element, "unknown attribute \(unknown) (expected: \(attributes.isEmpty ? "none" : attributes.sorted().joined(separator: ", ")))")
        }
        if let unknown = element.children.first(where: { !children.contains($0.name) }) {
            throw refuse(unknown, "is not allowed inside <\(element.name)> (expected: \(children.sorted().joined(separator: ", ")))")
        }
    }

    func bool(_ element: ConfigElement, _ attribute: String) throws -> Bool? {
        guard let text = element.attributes[attribute] else { return nil }
        guard let value = ["true": true, "false": false][text] else { throw refuse(element, "\(attribute) '\(text)' is neither true nor false") }
        return value
    }
}
