import Foundation
import Policies

/// The request the app sends once it trusts the server; `secret` is what an attacker must not read.
public struct RequestSpec: Sendable {
    /// `https://` (TLS, the default) or `http://` (plain text, which App Transport Security refuses unless allowed).
    public enum Scheme: String, Sendable, CaseIterable {
        case https, http
    }

    public var scheme = Scheme.https
    public var method = "POST"
    /// The path (with its query, if any) the request names.
    public var path = "/login"
    public var body = "username=alice&password=hunter2"
    public var secret = "hunter2"

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable { case method, url, path, body, secret }

    /// The `request` mapping; `host` is `server.host`, the only host `request.url` may name.
    init(from decoder: Decoder, host: String) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        method = try container.decodeValueIfPresent(String.self, forKey: .method) ?? method
        if let url = try container.decodeValueIfPresent(String.self, forKey: .url) {
            guard !container.contains(.path) else {
                throw DecodingError.dataCorruptedError(forKey: .url, in: container, debugDescription: "give either request.url or request.path, not both")
            }
            (scheme, path) = try Self.parse(url, host: host, in: container)
        } else {
            path = try container.decodeValueIfPresent(String.self, forKey: .path) ?? path
        }
        body = try container.decodeValueIfPresent(String.self, forKey: .body) ?? body
        secret = try container.decodeValueIfPresent(String.self, forKey: .secret) ?? secret
        // Both go into the request line as they are: a line break there would start a header of its own.
        guard !method.isEmpty, method.unicodeScalars.allSatisfy({ $0.isASCII && Self.tokenCharacters.contains(Character($0)) }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .method, in: container,
                debugDescription: "'\(method)' is not an HTTP method: a method is letters, digits and !#$%&'*+-.^_`|~ (an RFC 9110 token), e.g. POST")
        }
        guard path.hasPrefix("/"), path.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw DecodingError.dataCorruptedError(
                forKey: container.contains(.url) ? .url : .path, in: container,
                debugDescription: "'\(path)' is not a path: it starts with / and holds no spaces or control characters (percent-encode them)")
        }
    }

    private static let tokenCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~")

    /// The scheme and the path (with any query) of `https://HOST/path` or `http://HOST/path`, where HOST is `host`.
    private static func parse(_ url: String, host: String, in container: KeyedDecodingContainer<CodingKeys>) throws -> (Scheme, String) {
        func refuse(_ reason: String) -> DecodingError { .dataCorruptedError(forKey: .url, in: container, debugDescription: "'\(url)' \(reason)") }
        guard let parts = URLComponents(string: url), let written = parts.scheme, let named = parts.host, !named.isEmpty else {
            throw refuse("is not a URL such as https://\(host)/login")
        }
        guard let scheme = Scheme(rawValue: written.lowercased()) else { throw refuse("is neither https:// nor http://") }
        guard parts.user == nil, parts.password == nil, parts.port == nil, parts.fragment == nil else {
            throw refuse(
                "has more than a scheme, a host, a path and a query (no user, port or fragment: the app reaches server.host on the port mitmsim gives it)")
        }
        // URLComponents keeps the brackets of an IPv6 address.
        let bare = named.hasPrefix("[") && named.hasSuffix("]") ? String(named.dropFirst().dropLast()) : named
        guard bare == host else { throw refuse("names the host '\(bare)', not server.host '\(host)' (the app sends its request to the server)") }
        let path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        return (scheme, path + (parts.percentEncodedQuery.map { "?" + $0 } ?? ""))
    }
}
