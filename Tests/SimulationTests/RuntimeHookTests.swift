import Foundation
import Policies
import Simulation
import Testing

/// Each runtime hook against each library it patches, as real runs on 127.0.0.1: the verdict and deciding step
/// with the hook, and the different ones without it (so a hook with no effect fails its case).
struct RuntimeHookTests {
    /// A lesson run as `client` with `hooks`, and what each run decides with and without them.
    struct Case: Sendable, CustomStringConvertible {
        let lesson: String
        let client: ClientModelName
        let hooks: [RuntimeHook]
        let hooked: (trusted: Bool, check: TraceStep.Check)
        let unhooked: (trusted: Bool, check: TraceStep.Check)
        /// What the case changes in the lesson before it runs (nothing by default).
        var edit: @Sendable (inout Scenario) -> Void = { _ in }

        var description: String { "\(lesson) as \(client.rawValue) with \(hooks.map(\.name).joined(separator: ", "))" }
    }

    static let cases: [Case] = [
        // objection's setter hooks on AFSecurityPolicy, against lesson 12's certificate pin and the installed CA.
        Case(
            lesson: "12-certificate-pin-vs-installed-ca", client: .afnetworking(.v4), hooks: [.setSSLPinningMode],
            hooked: (true, .chainTrust), unhooked: (false, .pinnedAnchors)),
        Case(
            lesson: "12-certificate-pin-vs-installed-ca", client: .afnetworking(.v2_5_3), hooks: [.setSSLPinningMode],
            hooked: (true, .chainTrust), unhooked: (false, .pinnedAnchors)),
        // Both setters: AFNetworking's own rule refuses allowInvalidCertificates YES with no pinning and a domain to check.
        Case(
            lesson: "12-certificate-pin-vs-installed-ca", client: .afnetworking(.v4), hooks: [.setSSLPinningMode, .setAllowInvalidCertificates],
            hooked: (false, .domainGuard), unhooked: (false, .pinnedAnchors)),
        // The default policy (mode none) with allowInvalidCertificates YES and a domain trips the same rule.
        Case(
            lesson: "02-forged-untrusted-ca", client: .afnetworking(.v4), hooks: [.setAllowInvalidCertificates],
            hooked: (false, .domainGuard), unhooked: (false, .chainTrust)),
        // objection's URLSession hook: AFNetworking's handler and Alamofire 4's session-level method answer UseCredential.
        Case(
            lesson: "12-certificate-pin-vs-installed-ca", client: .afnetworking(.v4), hooks: [.urlSessionChallenge],
            hooked: (true, .urlSessionChallengeHook), unhooked: (false, .pinnedAnchors)),
        Case(
            lesson: "12-certificate-pin-vs-installed-ca", client: .alamofire4, hooks: [.urlSessionChallenge],
            hooked: (true, .urlSessionChallengeHook), unhooked: (false, .alamofire4TrustEvaluation)),
        // ATS still asks the system, which does not trust a CA nobody installed.
        Case(
            lesson: "02-forged-untrusted-ca", client: .afnetworking(.v4), hooks: [.urlSessionChallenge],
            hooked: (false, .atsServerTrust), unhooked: (false, .chainTrust)),
        Case(
            lesson: "12-certificate-pin-vs-installed-ca", client: .trustkit, hooks: [.trustKitValidator],
            hooked: (true, .trustKitValidatorHook), unhooked: (false, .trustKitPinMatch)),
        Case(
            lesson: "02-forged-untrusted-ca", client: .trustkit, hooks: [.trustKitValidator],
            hooked: (true, .trustKitValidatorHook), unhooked: (false, .trustKitDefaultHandling)),
        Case(
            lesson: "62-hooked-okhttp-certificate-pinner", client: .okhttp, hooks: [.certificatePinnerCheck],
            hooked: (true, .certificatePinnerCheckHook), unhooked: (false, .okHttpCertificatePinner)),
        Case(
            lesson: "62-hooked-okhttp-certificate-pinner", client: .okhttp3_1_1, hooks: [.certificatePinnerCheck],
            hooked: (true, .certificatePinnerCheckHook), unhooked: (false, .okHttpCertificatePinner)),
        Case(
            lesson: "63-hooked-trust-all-trust-manager", client: .okhttp, hooks: [.sslContextTrustAll],
            hooked: (true, .okHttpHostnameVerifier), unhooked: (false, .okHttpTrustManager)),
        Case(
            lesson: "62-hooked-okhttp-certificate-pinner", client: .androidNSC, hooks: [.networkSecurityConfigPins],
            hooked: (true, .androidHostnameVerifier), unhooked: (false, .androidPinSet)),
        // SecTrustEvaluate(WithError) forced to success, against a CA nobody installed: every evaluation the app's code makes
        // reads success, but ATS's own evaluation is not hooked in mitmsim, and no comparison with pins is fooled.
        Case(
            lesson: "02-forged-untrusted-ca", client: .afnetworking(.v4), hooks: [.secTrustEvaluate],
            hooked: (true, .secTrustEvaluateHook), unhooked: (false, .chainTrust), edit: { $0.client.ats.allowsArbitraryLoads = true }),
        Case(
            lesson: "02-forged-untrusted-ca", client: .afnetworking(.v4), hooks: [.secTrustEvaluate],
            hooked: (false, .atsServerTrust), unhooked: (false, .chainTrust)),
        Case(
            lesson: "02-forged-untrusted-ca", client: .afnetworking(.v4), hooks: [.secTrustEvaluate],
            hooked: (false, .pinnedCertificateMatch), unhooked: (false, .chainTrust), edit: pinning(.certificate)),
        Case(
            lesson: "02-forged-untrusted-ca", client: .afnetworking(.v4), hooks: [.secTrustEvaluate],
            hooked: (false, .pinnedPublicKeyMatch), unhooked: (false, .chainTrust), edit: pinning(.publicKey)),
        Case(
            lesson: "02-forged-untrusted-ca", client: .afnetworking(.v2_1), hooks: [.secTrustEvaluate],
            hooked: (false, .everyCertificatePinned), unhooked: (false, .chainTrust),
            edit: {
                pinning(.certificate)(&$0)
                $0.client.policy.allowInvalidCertificates = true
                $0.client.policy.validatesDomainName = false
            }),
        Case(
            lesson: "02-forged-untrusted-ca", client: .alamofire5, hooks: [.secTrustEvaluate],
            hooked: (true, .secTrustEvaluateHook), unhooked: (false, .alamofireHostValidation)),
        Case(
            lesson: "02-forged-untrusted-ca", client: .alamofire5, hooks: [.secTrustEvaluate],
            hooked: (false, .alamofirePublicKeyPinning), unhooked: (false, .alamofireDefaultValidation), edit: pinning(.publicKey)),
        // Alamofire 4's certificate pin with validateCertificateChain rests on the evaluation alone, with the pins as anchors.
        Case(
            lesson: "12-certificate-pin-vs-installed-ca", client: .alamofire4, hooks: [.secTrustEvaluate],
            hooked: (true, .secTrustEvaluateHook), unhooked: (false, .alamofire4TrustEvaluation)),
        Case(
            lesson: "02-forged-untrusted-ca", client: .alamofire4, hooks: [.secTrustEvaluate],
            hooked: (false, .alamofire4PublicKeyPinning), unhooked: (false, .alamofire4TrustEvaluation), edit: pinning(.publicKey)),
        Case(
            lesson: "02-forged-untrusted-ca", client: .trustkit, hooks: [.secTrustEvaluate],
            hooked: (false, .trustKitPinMatch), unhooked: (false, .trustKitChainValidation), edit: pinning(.publicKey)),
    ]

    /// The lesson's client pins 'bank-leaf' in `mode`.
    static func pinning(_ mode: SSLPinningMode) -> @Sendable (inout Scenario) -> Void {
        { scenario in
            scenario.client.policy.pinningMode = mode
            scenario.client.policy.pinnedCertificates = ["bank-leaf"]
        }
    }

    static func run(_ lesson: String, as client: ClientModelName, hooks: [RuntimeHook], edit: (inout Scenario) -> Void = { _ in }) throws -> RunReport {
        var scenario = try ScenarioCatalog.builtIn.load(lesson)
        edit(&scenario)
        scenario = Comparison.scenario(scenario, for: client)
        scenario.attacker.hooks = hooks.map(\.name)
        return try ScenarioRunner.run(scenario)
    }

    @Test(arguments: cases.indices)
    func eachHookChangesTheVerdictOrTheDecidingStepOfTheLibraryItPatches(_ index: Int) throws {
        let c = Self.cases[index]
        let hooked = try Self.run(c.lesson, as: c.client, hooks: c.hooks, edit: c.edit)
        let unhooked = try Self.run(c.lesson, as: c.client, hooks: [], edit: c.edit)
        #expect(hooked.trusted == c.hooked.trusted, "\(c)")
        #expect(hooked.decidingCheck == c.hooked.check, "\(c)")
        #expect(unhooked.trusted == c.unhooked.trusted, "\(c) without hooks")
        #expect(unhooked.decidingCheck == c.unhooked.check, "\(c) without hooks")
        #expect(hooked.result.attackerSawPlaintext == c.hooked.trusted, "\(c): the network attack still happens")
    }

    @Test func aHookThatFindsNothingToPatchSaysSoAndChangesNoVerdict() throws {
        let hooked = try Self.run("62-hooked-okhttp-certificate-pinner", as: .okhttp, hooks: [.setSSLPinningMode])
        let step = try #require(hooked.evaluation?.steps.first)
        #expect(step.check == .setSSLPinningModeHook && step.outcome == .skipped)
        #expect(step.detail == "-[AFSecurityPolicy setSSLPinningMode:] is hooked, but OkHttp's decision never goes through it, so the hook changes nothing")
        #expect(!hooked.trusted && hooked.decidingCheck == .okHttpCertificatePinner)
    }

    @Test func theSetterHookSaysWhichModeItReplaced() throws {
        let hooked = try Self.run("12-certificate-pin-vs-installed-ca", as: .afnetworking(.v4), hooks: [.setSSLPinningMode])
        let step = try #require(hooked.evaluation?.steps.first)
        #expect(step.check == .setSSLPinningModeHook && step.outcome == .note)
        #expect(step.detail.contains("the app asked for AFSSLPinningModeCertificate"))
    }

    @Test func theTrustAllTrustManagerLeavesOkHttpsPinnerToItsChainCleaner() throws {
        var scenario = try ScenarioCatalog.builtIn.load("63-hooked-trust-all-trust-manager")
        scenario.client.policy.pinningMode = .publicKey
        let report = try ScenarioRunner.run(scenario)
        #expect(!report.trusted && report.decidingCheck == .okHttpChainCleaning)
        scenario.attacker.hooks.append(RuntimeHook.certificatePinnerCheck.name)
        let both = try ScenarioRunner.run(scenario)
        #expect(both.trusted && both.decidingCheck == .certificatePinnerCheckHook)
    }

    @Test func twoWayTLSStillKeepsTheProxyFromTheBankWhenTheAppIsHooked() throws {
        let report = try ScenarioRunner.run(try ScenarioCatalog.builtIn.load("64-hooked-app-two-way-tls"))
        #expect(report.trusted && report.result.attackerSawPlaintext)
        #expect(!report.result.serverReceivedRequest)
    }

    @Test func nspinnedDomainsStillRefusesWhenTheAppsChallengeIsHooked() throws {
        var scenario = try ScenarioCatalog.builtIn.load("55-nspinneddomains-stops-installed-ca")
        scenario.client.challengeHandler = .acceptAll
        scenario.attacker.hooks = [RuntimeHook.urlSessionChallenge.name]
        let report = try ScenarioRunner.run(scenario)
        #expect(!report.trusted && report.decidingCheck == .atsServerTrust)
        let steps = report.evaluation?.steps ?? []
        #expect(steps.contains { $0.check == .urlSessionChallengeHook && $0.outcome == .passed })
        #expect(steps.contains { $0.check == .pinnedIdentities && $0.outcome == .failed })
    }

    /// What Docs/peers.md §14 says `compare --hooked` shows for lesson 12.
    @Test func compareHookedRunsEveryModelAgainstTheSameHookedAttack() throws {
        let lesson = try ScenarioCatalog.builtIn.load("12-certificate-pin-vs-installed-ca")
        let comparison = try Comparison(scenario: lesson.hookingEveryTool)
        #expect(comparison.heading[1].contains("hooking setSSLPinningMode, setAllowInvalidCertificates, urlSessionChallenge, secTrustEvaluate"))
        let refused: [ClientModelName: TraceStep.Check] = [
            .alamofire5: .alamofireCertificatePinning, .androidNSC: .androidTrustAnchors, .curl: .curlPinnedPublicKey, .curl8_17: .curlPinnedPublicKey,
        ]
        for row in comparison.rows {
            #expect(row.trusted == (refused[row.client] == nil), "\(row.client)")
            #expect(row.attackerSawPlaintext == row.trusted, "\(row.client)")
            if let check = refused[row.client] { #expect(row.decidingCheck == check, "\(row.client)") }
            if row.client.afnetworking != nil { #expect(row.decidingCheck == .urlSessionChallengeHook, "\(row.client)") }
        }
    }

    @Test func theEvaluationHookLeavesTheSystemsDefaultHandlingAloneAndSaysSo() throws {
        let hooked = try Self.run("02-forged-untrusted-ca", as: .afnetworking(.v4), hooks: [.secTrustEvaluate]) { $0.client.challengeHandler = .systemDefault }
        let step = try #require(hooked.evaluation?.steps.first)
        #expect(step.check == .secTrustEvaluateHook && step.outcome == .skipped)
        #expect(step.detail.contains("URLSession's default handling evaluates, and mitmsim applies the hook to the app's own calls only"))
        #expect(!hooked.trusted && hooked.decidingCheck == .systemTrust)
    }

    @Test func theEvaluationHookKeepsTheRealEvaluationAsANoteAndTheRealChainForThePins() throws {
        let hooked = try Self.run("02-forged-untrusted-ca", as: .trustkit, hooks: [.secTrustEvaluate], edit: Self.pinning(.publicKey))
        let steps = hooked.evaluation?.steps ?? []
        let evaluation = try #require(steps.firstIndex { $0.check == .trustKitChainValidation })
        #expect(steps[evaluation].outcome == .note && steps[evaluation].detail.hasSuffix("(that is what the hook replaces)"))
        #expect(steps[evaluation + 1].check == .secTrustEvaluateHook && steps[evaluation + 1].outcome == .passed)
        #expect(steps[evaluation + 2].check == .trustKitPinMatch && steps[evaluation + 2].detail.contains("'forged bank-leaf' -> 'attacker-ca'"))
    }

    @Test(arguments: [
        ("  hooks: [setSSLPinningMod]", "x.yaml: attacker.hooks[0]: 'setSSLPinningMod' is not a runtime hook"),
        ("  hooks: [setSSLPinningMode, setSSLPinningMode]", "x.yaml: attacker.hooks[1]: 'setSSLPinningMode' is named twice (each hook is applied once)"),
    ])
    func anUnknownOrRepeatedHookIsRefusedNamingTheFileAndField(_ line: String, _ message: String) throws {
        let text = LoaderErrorTests.valid.replacingOccurrences(of: "  authority: attacker-ca\n", with: "  authority: attacker-ca\n\(line)\n")
        let error = try #require(LoaderErrorTests().error(text))
        #expect(error.hasPrefix(message), "\(error)")
    }
}
