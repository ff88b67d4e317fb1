extension IOSClient {
    /// The app around the policy: its AFNetworking release, who answers the challenge and which iOS; its ATS;
    /// and its `AFSecurityPolicy` with the lesson's pins and the domain it is handed.
    public func settingsLines(_ client: ClientSettingsContext) -> [String] {
        let domain = client.domain.map { "domain '\($0)'" } ?? "domain nil"
        return [
            "App: \(policy.version.displayName); \(challengeHandler.phrase); \(client.platform.name)", "ATS: \(ats.summary)",
            "AFSecurityPolicy: " + (policy.settings + [client.pinned, domain]).joined(separator: ", "),
        ]
    }
}
