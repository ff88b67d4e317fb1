import Foundation
import PKI

extension NetworkSecurityConfig {
    /// Reads `res/xml/network_security_config.xml` as written, refusing what Android would refuse; a value left
    /// out stays nil, and Android's defaults are applied by the client that judges with it. The app's raw
    /// resources are not given, so a `@raw/` trust anchor holds no certificate. Any error names the line and
    /// the element; a DTD, an entity or an element nested deeper than `depthLimit` is refused (`XMLTree`).
    public init(xml bytes: [UInt8], depthLimit: Int) throws(ConfigurationError) {
        self = try XMLReader().config(try XMLTree.root(of: bytes, depthLimit: depthLimit, prolog: .noDoctype, kind: "a network security config"))
    }
}

/// Turns the element tree into a `NetworkSecurityConfig`, refusing what Android would refuse.
private struct XMLReader {
    func refuse(_ element: XMLTree.Element, _ reason: String) -> ConfigurationError {
        ConfigurationError(path: "line \(element.line), <\(element.name)>", reason: reason)
    }

    func config(_ root: XMLTree.Element) throws(ConfigurationError) -> NetworkSecurityConfig {
        guard root.name == "network-security-config" else { throw refuse(root, "the root element must be <network-security-config>") }
        try check(root, attributes: [], children: ["base-config", "domain-config", "debug-overrides"])
        var result = NetworkSecurityConfig()
        for child in root.children {
            switch child.name {
            case "base-config":
                guard result.baseConfig == nil else { throw refuse(child, "appears twice (Android allows one <base-config>)") }
                try check(child, attributes: ["cleartextTrafficPermitted"], children: ["trust-anchors", "certificateTransparency"])
                result.baseConfig = .init(
                    cleartextTrafficPermitted: try bool(child, "cleartextTrafficPermitted"), trustAnchors: try trustAnchors(child),
                    certificateTransparency: try certificateTransparency(child))
            case "debug-overrides":
                guard result.debugOverrides == nil else { throw refuse(child, "appears twice (Android allows one <debug-overrides>)") }
                try check(child, attributes: [], children: ["trust-anchors"])
                result.debugOverrides = try trustAnchors(child) ?? []
            default:
                result.domainConfigs.append(try domainConfig(child))
            }
        }
        return result
    }

    func domainConfig(_ element: XMLTree.Element) throws(ConfigurationError) -> NetworkSecurityConfig.DomainConfig {
        try check(
            element, attributes: ["cleartextTrafficPermitted"], children: ["domain", "trust-anchors", "pin-set", "domain-config", "certificateTransparency"])
        var result = NetworkSecurityConfig.DomainConfig(
            domains: [], cleartextTrafficPermitted: try bool(element, "cleartextTrafficPermitted"), trustAnchors: try trustAnchors(element),
            certificateTransparency: try certificateTransparency(element))
        for child in element.children where child.name == "domain" {
            try check(child, attributes: ["includeSubdomains"], children: [])
            let name = child.text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            guard HostName.isValid(name), !name.contains("*") else { throw refuse(child, "'\(name)' is not a domain name (no scheme, port or wildcard)") }
            guard !CertificateSpec.isIPAddress(name) else { throw refuse(child, ConfigurationError.ipAddressRefusal(name)) }
            result.domains.append(.init(name, includeSubdomains: try bool(child, "includeSubdomains") ?? false))
        }
        guard !result.domains.isEmpty else { throw refuse(element, "names no <domain> (Android requires at least one)") }
        for child in element.children where child.name == "pin-set" {
            guard result.pinSet == nil else { throw refuse(child, "appears twice in one <domain-config>") }
            try check(child, attributes: ["expiration"], children: ["pin"])
            var expiration: Date?
            if let text = child.attributes["expiration"] {
                guard let day = CalendarDay.date(text) else { throw refuse(child, "expiration '\(text)' is not a date written yyyy-MM-dd") }
                expiration = day
            }
            var pins: [NetworkSecurityConfig.Pin] = []
            for pin in child.children {
                try check(pin, attributes: ["digest"], children: [])
                guard pin.attributes["digest"] == "SHA-256" else { throw refuse(pin, "digest must be \"SHA-256\" (the only digest Android accepts)") }
                let value = pin.text.trimmingCharacters(in: .whitespacesAndNewlines)
                guard let read = try? NetworkSecurityConfig.Pin(base64: value) else {
                    throw refuse(pin, "'\(value)' is not the base64 of a 32-byte SHA-256 digest")
                }
                pins.append(read)
            }
            result.pinSet = .init(pins: pins, expiration: expiration)
        }
        for child in element.children where child.name == "domain-config" { result.domainConfigs.append(try domainConfig(child)) }
        return result
    }

    /// The `<trust-anchors>` of `element`; nil when it has none (it inherits them).
    func trustAnchors(_ element: XMLTree.Element) throws(ConfigurationError) -> [NetworkSecurityConfig.CertificatesEntry]? {
        var result: [NetworkSecurityConfig.CertificatesEntry]?
        for anchors in element.children where anchors.name == "trust-anchors" {
            guard result == nil else { throw refuse(anchors, "appears twice in one element") }
            try check(anchors, attributes: [], children: ["certificates"])
            var entries: [NetworkSecurityConfig.CertificatesEntry] = []
            for certificates in anchors.children {
                try check(certificates, attributes: ["src", "overridePins"], children: [])
                guard let src = certificates.attributes["src"] else { throw refuse(certificates, "has no src (system, user or @raw/…)") }
                let source: NetworkSecurityConfig.CertificatesEntry.Source
                switch src {
                case "system": source = .system
                case "user": source = .user
                case let name where name.hasPrefix("@raw/"): source = .resource(name: name, certificates: [])
                default: throw refuse(certificates, "src '\(src)' is not system, user or a @raw/ resource")
                }
                entries.append(.init(source, overridePins: try bool(certificates, "overridePins")))
            }
            result = entries
        }
        return result
    }

    /// The `<certificateTransparency enabled="…"/>` of a base-config or domain-config (Android 16 on); nil when it has
    /// none. Android reads a missing `enabled` as false (`parseCertificateTransparency`).
    func certificateTransparency(_ element: XMLTree.Element) throws(ConfigurationError) -> Bool? {
        var result: Bool?
        for child in element.children where child.name == "certificateTransparency" {
            guard result == nil else { throw refuse(child, "appears twice in one <\(element.name)>") }
            try check(child, attributes: ["enabled"], children: [])
            result = try bool(child, "enabled") ?? false
        }
        return result
    }

    /// Refuses an attribute or a child element Android does not define there.
    func check(_ element: XMLTree.Element, attributes: Set<String>, children: Set<String>) throws(ConfigurationError) {
        if let unknown = element.attributes.keys.sorted().first(where: { !attributes.contains($0) }) {
            throw refuse(element, "unknown attribute \(unknown) (expected: \(attributes.isEmpty ? "none" : attributes.sorted().joined(separator: ", ")))")
        }
        if let unknown = element.children.first(where: { !children.contains($0.name) }) {
            throw refuse(unknown, "is not allowed inside <\(element.name)> (expected: \(children.sorted().joined(separator: ", ")))")
        }
    }

    func bool(_ element: XMLTree.Element, _ attribute: String) throws(ConfigurationError) -> Bool? {
        guard let text = element.attributes[attribute] else { return nil }
        guard let value = ["true": true, "false": false][text] else { throw refuse(element, "\(attribute) '\(text)' is neither true nor false") }
        return value
    }
}
