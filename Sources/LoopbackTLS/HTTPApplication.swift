/// What an origin serves. The TLS layer knows no lesson: the bank and what it calls a secret live above it.
public protocol HTTPApplication: Sendable {
    /// The answer to one request; it must depend only on the request, so transcripts repeat exactly.
    func respond(to request: HTTPMessage) -> HTTPMessage
    /// What the origin's event log says it received, e.g. "HTTP request POST /login".
    func describe(_ request: HTTPMessage) -> String
}

extension HTTPApplication {
    public func describe(_ request: HTTPMessage) -> String {
        "HTTP request " + (request.requestTarget.map { "\($0.method) \($0.path)" } ?? request.startLine)
    }
}
