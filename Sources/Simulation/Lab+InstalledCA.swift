extension Lab {
    /// A lesson whose attacker forges with a CA the user installed and fully trusted (03, 12, 13, …), and what the
    /// lesson's own app made of it: the lab prints a command that does the same with the lab's CA, which the lab's
    /// attacker forges with, standing in for the installed one.
    struct InstalledCAStory: Sendable {
        /// "ACCEPTED at chainTrust": the lesson's verdict, from a real run of the lesson.
        let verdict: String
        let trusted: Bool
        /// Refused at a pin check: curl with the real leaf's key pinned refuses the forgery too.
        let refusedByPin: Bool
        /// The lesson's pins, by id.
        let pinned: [String]

        /// Nil unless the lesson's forging attacker signs with a CA the device installed and fully trusts; runs the lesson.
        init?(_ scenario: Scenario) throws {
            guard scenario.attacker.attack == .forge, let id = scenario.attacker.authority,
                scenario.world.authorities.first(where: { $0.id == id })?.deviceTrust == .userInstalled
            else { return nil }
            let report = try ScenarioRunner.run(scenario)
            verdict = report.verdict
            trusted = report.trusted
            refusedByPin = !report.trusted && report.decidingCheck?.rawValue.localizedCaseInsensitiveContains("pin") == true
            pinned = scenario.client.policy.pinnedCertificates + scenario.atsPinnedCertificateIDs
        }

        /// What the command is like: the lesson's app on its device, or, when that app ignores the installed CA, what
        /// a client that takes it does.
        func policy(anchorWords: String) -> String {
            let device = "on a device with the attacker's CA installed and fully trusted (lab-attacker-ca, which signs the lab's forgeries, stands in for it)"
            if trusted { return "this lesson's app, \(verdict), \(device)" }
            guard refusedByPin else {
                return "a client that trusts the CA the user installed, \(device); this lesson's app does not (\(verdict)): "
                    + "command 1, trusting only \(anchorWords), is what it does"
            }
            let pins = pinned.map { "'\($0)'" }.joined(separator: ", ")
            return "this lesson's app, \(verdict), pinning \(pins), \(device); curl pins the real leaf's public key "
                + "(it has no certificate pinning, and compares the pin with the leaf's key only)"
        }
    }
}

extension Scenario {
    /// Whether anything of the lesson but its attacker names the certificate `id`: an issuer, the server, the client's
    /// identity, a pin (the policy's or `NSPinnedDomains`'s) or a leaf's borrowed key.
    func uses(_ id: String) -> Bool {
        world.authorities.contains { $0.issuer == id } || world.leaves.contains { $0.issuer == id || $0.keyOf == id }
            || world.clientIdentity?.issuer == id || server.leaf == id || server.chain.contains(id) || client.policy.pinnedCertificates.contains(id)
            || atsPinnedCertificateIDs.contains(id)
    }
}
