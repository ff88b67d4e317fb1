import LoopbackTLS
import PKI

/// The origin's web application: a bank that signs users in.
///
/// `POST /login` with a password answers with an account page and a session token; `GET /bytes/N`
/// answers with N bytes (for relay benchmarks); anything else gets a short page. Answers depend only on
/// the request, so transcripts stay the same from run to run.
public struct BankApp: HTTPApplication {
    public let host: String

    public init(host: String) { self.host = host }

    public func respond(to request: HTTPMessage) -> HTTPMessage {
        guard let (method, path) = request.requestTarget else { return page(400, "Bad Request", "That was not an HTTP request.") }
        if method == "POST", path == "/login" {
            let form = Self.form(request.body)
            guard let user = form["username"], let password = form["password"], !password.isEmpty else {
                return page(401, "Unauthorized", "Please sign in with a username and password.")
            }
            let token = OpenSSL.sha256(Array("\(user):\(password)".utf8)).hexString.prefix(32)
            return page(200, "OK", "Welcome back, \(user). Balance: 1,024.00 EUR. Session token: \(token)")
        }
        if method == "GET", path.hasPrefix("/bytes/"), let count = Int(path.dropFirst("/bytes/".count)), (0...(256 << 20)).contains(count) {
            return .response(200, "OK", body: [UInt8](repeating: UInt8(ascii: "x"), count: count), contentType: "application/octet-stream")
        }
        return page(200, "OK", "\(host): sign in with POST /login.")
    }

    /// "HTTP request POST /login with password 'hunter2'": the origin's log names what it was trusted with.
    public func describe(_ request: HTTPMessage) -> String {
        let line = request.requestTarget.map { "\($0.method) \($0.path)" } ?? request.startLine
        return "HTTP request \(line)" + (Self.form(request.body)["password"].map { " with password '\($0)'" } ?? "")
    }

    private func page(_ status: Int, _ reason: String, _ text: String) -> HTTPMessage {
        .response(status, reason, body: Array("<html><body><h1>Example Bank</h1><p>\(text)</p></body></html>\n".utf8))
    }

    /// `application/x-www-form-urlencoded` fields (no percent-decoding: lesson passwords are plain).
    static func form(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }
}
