import PKI

extension IOSClient {
    /// The articles' two-way TLS block (`setSessionDidReceiveAuthenticationChallengeBlock:`) on the server-trust
    /// challenge: it asks the security policy as AFURLSessionManager's own handling does, but its answer goes back
    /// through the session-level delegate method, where no release attaches an error of its own, so a NO fails the
    /// task with URLSession's -999 (4.0.1 attaches -1202 only when no block answers).
    func identityBlockAnswer(serverTrust: ServerTrust, domain: String?) -> Answer {
        let call = policy.version.hasValidatesDomainName ? "evaluateServerTrust:forDomain:\(domain.map { "@\"\($0)\"" } ?? "nil")" : "evaluateServerTrust:"
        let handler = TraceStep(
            .challengeHandler, .note,
            "the app's block (setSessionDidReceiveAuthenticationChallengeBlock:) gets the server-trust challenge and asks the security policy "
                + "(\(policy.version.rawValue)): \(call)")
        let verdict = policy.evaluate(serverTrust: serverTrust, forDomain: domain)
        guard verdict.isTrusted else {
            let disposition = TraceStep(
                .challengeDisposition, .note,
                "the policy said NO: the block returns CancelAuthenticationChallenge, and as AFNetworking attaches no error to a block's answer, "
                    + "the task fails with \(NSURLError.cancelled)")
            return Answer(
                steps: [handler] + verdict.steps + [disposition], path: verdict.path, rejection: verdict.rejection, urlError: .cancelled,
                leavesNothingToATS: "the block cancelled the challenge, so there is no connection left for ATS to judge")
        }
        let disposition = TraceStep(.challengeDisposition, .note, "the policy said YES: the block returns UseCredential with credentialForTrust:")
        return Answer(steps: [handler] + verdict.steps + [disposition], path: verdict.path)
    }

    /// The client-certificate challenge as a handler that never opens the app's `.p12` answers it: no identity,
    /// so the handshake goes on without a client certificate. Nil for `identityBlock`, which imports the `.p12`
    /// (`importClientIdentity`).
    ///
    /// AFURLSessionManager without a block (2.0.0 through 4.0.1) leaves any challenge but server trust at
    /// `PerformDefaultHandling` with a nil credential: 3.x in `URLSession:didReceiveChallenge:completionHandler:`,
    /// 4.0.1 in the task-level method, where `evaluateServerTrust` is NO for it.
    public static func clientCertificateAnswer(by handler: ChallengeHandler) -> TraceStep? {
        let asked = "the server asked for a client certificate"
        let detail: String
        switch handler {
        case .identityBlock:
            return nil
        case .afnetworking:
            detail =
                "\(asked), and AFURLSessionManager, with no challenge block from the app, answers every challenge but server trust with "
                + "PerformDefaultHandling and a nil credential: the app's .p12 is never opened, so no client certificate is sent"
        case .acceptAll:
            detail =
                "\(asked), and the app's block answers it as it answers every challenge, UseCredential with credentialForTrust:, "
                + "a credential that holds no identity, so no client certificate is sent"
        case .systemDefault:
            detail =
                "\(asked), and with no challenge delegate method URLSession performs the default handling, which has no identity "
                + "from the app, so no client certificate is sent"
        }
        return TraceStep(.clientCertificate, .note, detail)
    }

    /// The client-certificate challenge that never came: the server asked (its CertificateRequest arrived), but
    /// iOS asks the app for a certificate only after the server's chain is accepted, and the verdict ended the
    /// handshake first.
    public static let clientCertificateNeverAsked = TraceStep(
        .clientCertificate, .note,
        "the server's CertificateRequest asked for a client certificate too, but the verdict on the server's chain ended the handshake "
            + "before the app was asked for one: no client certificate was sent")
}
