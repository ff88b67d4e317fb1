import Foundation
import LoopbackTLS
import PKI

/// The origin's web application: a bank that signs users in.
///
/// `GET /` is a sign-in form a person can use in a browser; `POST /login` with a password (form-encoded,
/// as the form and the lessons send it) answers with an account page and a session token; `GET /bytes/N`
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
            return page(200, "OK", "Welcome back, \(user.markupEscaped). Balance: 1,024.00 EUR. Session token: \(token)")
        }
        if method == "GET", path == "/" {
            return .response(200, "OK", body: Array(Self.signInPage(host: host).utf8))
        }
        if method == "GET", path.hasPrefix("/bytes/"), let count = Int(path.dropFirst("/bytes/".count)), (0...(256 << 20)).contains(count) {
            // Made while it is sent: a download costs the lab a piece's worth of memory, however long.
            return .response(200, "OK", repeating: UInt8(ascii: "x"), count: count, contentType: "application/octet-stream")
        }
        return page(200, "OK", "\(host): sign in with POST /login.")
    }

    /// "HTTP request POST /login with password 'hunter2'": the origin's log names what it was trusted with.
    public func describe(_ request: HTTPMessage) -> String {
        let line = request.requestTarget.map { "\($0.method) \($0.path)" } ?? request.startLine
        return "HTTP request \(line)" + (Self.form(request.body)["password"].map { " with password '\($0)'" } ?? "")
    }

    /// `html` goes inside the page's paragraph as it is: callers escape what came from a request.
    private func page(_ status: Int, _ reason: String, _ html: String) -> HTTPMessage {
        .response(status, reason, body: Array("<html><body><h1>Example Bank</h1><p>\(html)</p></body></html>\n".utf8))
    }

    /// The form a browser posts to `/login`, warning that what is typed may be shown to the room.
    private static func signInPage(host: String) -> String {
        """
        <html><head><title>Example Bank</title><meta name="viewport" content="width=device-width"></head><body><h1>Example Bank</h1>
        <p>Sign in to \(host.markupEscaped). This is the classroom lab's bank: type a made-up password, because if the lab's \
        attacker reads it, the lab shows it on the screen of the computer that runs the lab.</p>
        <form method="post" action="/login">
        <p><label>Username <input name="username" autocomplete="username"></label></p>
        <p><label>Password <input name="password" type="password" autocomplete="current-password"></label></p>
        <p><button type="submit">Sign in</button></p>
        </form></body></html>

        """
    }

    /// `application/x-www-form-urlencoded` fields, decoded as browsers encode them: `+` is a space and
    /// `%XX` a byte of UTF-8 (a field with a broken escape is kept as it came).
    static func form(_ body: [UInt8]) -> [String: String] {
        func decoded(_ text: String) -> String {
            let spaced = text.replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? spaced
        }
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[decoded(parts[0])] = decoded(parts[1]) }
        }
        return fields
    }
}
