import Console
import Foundation
import Policies
import Simulation
import Testing

/// The iOS client's gates as keys: `L` the AFNetworking release, `H` the challenge handler, `S`
/// NSAllowsArbitraryLoads and `E` the host's NSExceptionDomains entry. Keys in, scenario and change
/// line out, without a run.
struct ClientKeyTests {
    /// A walkthrough of `id` as written, not yet run: what `update` edits.
    static func opened(_ id: String, _ change: (inout Scenario) -> Void = { _ in }) -> ConsoleState {
        var state = ConsoleState(catalog: ConsoleRenderTests.catalog)
        guard var scenario = ConsoleRenderTests.catalog.first(where: { $0.id == id }) else { return state }
        change(&scenario)
        state.scenario = scenario
        state.lesson = scenario
        state.screen = .walkthrough
        return state
    }

    static func lesson(_ id: String, _ change: (inout Scenario) -> Void = { _ in }) throws -> Scenario {
        try #require(opened(id, change).scenario)
    }

    @Test("L steps through every AFNetworking release, newest first, and back to 4")
    func libraryCycle() {
        var state = Self.opened("02-forged-untrusted-ca")
        var seen: [AFNetworkingVersion] = []
        for _ in AFNetworkingVersion.allCases {
            #expect(update(&state, .character("L")) == .run)
            seen += [state.scenario?.client.library.afnetworking].compactMap { $0 }
        }
        #expect(seen == Array(AFNetworkingVersion.allCases.dropFirst()) + [.v4])
    }

    @Test("L keeps every policy setting the next release has, and the change line names only the release")
    func libraryKeepsSettings() throws {
        let lesson = try Self.lesson("12-certificate-pin-vs-installed-ca")
        let (edited, change) = ScenarioEdit.nextLibrary.apply(to: lesson)
        #expect(edited.client.library == .afnetworking(.v3_1))
        #expect(edited.client.policy.pinningMode == lesson.client.policy.pinningMode)
        #expect(edited.client.policy.pinnedCertificates == lesson.client.policy.pinnedCertificates)
        #expect(edited.client.policy.validatesDomainName == lesson.client.policy.validatesDomainName)
        #expect(change == "library afnetworking-4 → afnetworking-3.1")
    }

    @Test("Into 2.0, validatesDomainName takes 2.0's NO and the change line says 2.0 has none")
    func intoTwoZeroDropsTheDomainCheck() throws {
        let lesson = try Self.lesson("02-forged-untrusted-ca") { $0.client.library = .afnetworking(.v2_1) }
        let (edited, change) = ScenarioEdit.nextLibrary.apply(to: lesson)
        #expect(edited.client.library == .afnetworking(.v2_0))
        #expect(!edited.client.policy.validatesDomainName)
        #expect(change == "library afnetworking-2.1 → afnetworking-2.0, validatesDomainName YES → NO (afnetworking-2.0 has no validatesDomainName)")
    }

    @Test("Into 2.0, a chain check off and a nil domain come back as the loader would give them, and the line says why")
    func intoTwoZeroIsValid() throws {
        let lesson = try Self.lesson("02-forged-untrusted-ca") {
            $0.client.library = .afnetworking(.v2_1)
            $0.client.policy.validatesCertificateChain = false
            $0.client.passesDomain = false
        }
        let (edited, change) = ScenarioEdit.nextLibrary.apply(to: lesson)
        #expect(edited.client.policy.validatesCertificateChain)
        #expect(edited.client.passesDomain)
        #expect(
            change
                == "library afnetworking-2.1 → afnetworking-2.0, validatesDomainName YES → NO, validatesCertificateChain NO → YES, domain nil → 'bank.test' "
                + "(afnetworking-2.0 has no validatesDomainName, validatesCertificateChain or domain argument)")
    }

    @Test("Out of 2.0, validatesDomainName takes 4's default for the pinning mode")
    func outOfTwoZero() throws {
        let lesson = try Self.lesson("02-forged-untrusted-ca") {
            $0.client.library = .afnetworking(.v2_0)
            $0.client.policy.validatesDomainName = false
        }
        let (edited, change) = ScenarioEdit.nextLibrary.apply(to: lesson)
        #expect(edited.client.library == .afnetworking(.v4))
        #expect(edited.client.policy.validatesDomainName)
        #expect(
            change
                == "library afnetworking-2.0 → afnetworking-4, validatesDomainName NO → YES (validatesDomainName is afnetworking-4's default for pinning mode none)"
        )
    }

    @Test("Every release the cycle reaches holds only settings it has: no domain check or nil domain in 2.0, the chain check YES outside 2.1–2.5.3")
    func everyStepIsValid() throws {
        var scenario = try Self.lesson("02-forged-untrusted-ca") { $0.client.policy.pinningMode = .certificate }
        for _ in 0..<(2 * AFNetworkingVersion.allCases.count) {
            scenario = ScenarioEdit.nextLibrary.apply(to: scenario).scenario
            if scenario.client.library == .afnetworking(.v2_2) { scenario.client.policy.validatesCertificateChain = false }
            let release = try #require(scenario.client.library.afnetworking)
            if !release.hasValidatesDomainName {
                #expect(scenario.client.policy.validatesDomainName == release.defaultValidatesDomainName(for: .certificate))
                #expect(scenario.client.passesDomain)
            }
            if !release.hasValidatesCertificateChain { #expect(scenario.client.policy.validatesCertificateChain, "\(release)") }
        }
    }

    @Test("In 2.0, d and D change nothing and say that 2.0 has no domain check and takes no domain")
    func twoZeroHasNoDomainKeys() throws {
        let lesson = try Self.lesson("02-forged-untrusted-ca") {
            $0.client.library = .afnetworking(.v2_0)
            $0.client.policy.validatesDomainName = false
        }
        let (unchecked, checkLine) = ScenarioEdit.toggleValidatesDomainName.apply(to: lesson)
        #expect(!unchecked.client.policy.validatesDomainName)
        #expect(checkLine == "validatesDomainName unchanged: afnetworking-2.0 has no validatesDomainName (AFNetworking 2.1 added it)")
        let (handed, domainLine) = ScenarioEdit.toggleDomain.apply(to: lesson)
        #expect(handed.client.passesDomain)
        #expect(domainLine == "domain unchanged: afnetworking-2.0 is handed no domain (AFNetworking 2.1 added forDomain:)")
    }

    @Test("H cycles the challenge handler: afnetworking, acceptAll, systemDefault, identityBlock, and back")
    func handlerCycle() throws {
        var state = Self.opened("02-forged-untrusted-ca")
        var seen: [ChallengeHandler] = []
        for _ in ChallengeHandler.allCases {
            #expect(update(&state, .character("H")) == .run)
            seen += [state.scenario?.client.challengeHandler].compactMap { $0 }
        }
        #expect(seen == [.acceptAll, .systemDefault, .identityBlock, .afnetworking])
        let lesson = try Self.lesson("02-forged-untrusted-ca")
        #expect(ScenarioEdit.nextChallengeHandler.apply(to: lesson).change == "challenge handler afnetworking → acceptAll")
    }

    @Test("S switches NSAllowsArbitraryLoads on and off again, and the line names the key")
    func arbitraryLoads() throws {
        var state = Self.opened("08-allow-invalid-no-domain-check") { $0.client.ats = AppTransportSecurity() }
        #expect(update(&state, .character("S")) == .run)
        #expect(state.scenario?.client.ats.allowsArbitraryLoads == true)
        let lesson = try #require(state.lesson)
        #expect(ScenarioEdit.toggleArbitraryLoads.apply(to: lesson).change == "ATS NSAllowsArbitraryLoads NO → YES")
        #expect(update(&state, .character("S")) == .run)
        #expect(state.scenario?.client.ats == lesson.client.ats)
    }

    @Test("E adds an entry for the server's host with NSExceptionAllowsInsecureHTTPLoads YES, keeps the others, and removes it again")
    func exceptionForTheHost() throws {
        let other = AppTransportSecurity.ExceptionDomain(minimumTLSVersion: .tls10)
        var state = Self.opened("08-allow-invalid-no-domain-check") { $0.client.ats = AppTransportSecurity(exceptionDomains: ["cdn.test": other]) }
        let lesson = try #require(state.lesson)
        #expect(update(&state, .character("E")) == .run)
        #expect(state.scenario?.client.ats.exceptionDomains == ["cdn.test": other, "bank.test": .init(allowsInsecureHTTPLoads: true)])
        #expect(
            ScenarioEdit.toggleInsecureHTTPException(lesson: lesson).apply(to: lesson).change
                == "ATS NSExceptionDomains entry 'bank.test' none → NSExceptionAllowsInsecureHTTPLoads YES")
        #expect(update(&state, .character("E")) == .run)
        #expect(state.scenario?.client.ats == lesson.client.ats)
    }

    @Test("E on a host whose lesson entry lowers the TLS version keeps that key, and the second E gives the lesson's entry back")
    func exceptionKeepsTheLessonsEntry() throws {
        let written = AppTransportSecurity.ExceptionDomain(minimumTLSVersion: .tls10)
        var state = Self.opened("08-allow-invalid-no-domain-check") { $0.client.ats = AppTransportSecurity(exceptionDomains: ["bank.test": written]) }
        let lesson = try #require(state.lesson)
        _ = update(&state, .character("E"))
        #expect(state.scenario?.client.ats.exceptionDomains["bank.test"] == .init(allowsInsecureHTTPLoads: true, minimumTLSVersion: .tls10))
        #expect(
            ScenarioEdit.toggleInsecureHTTPException(lesson: lesson).apply(to: lesson).change
                == "ATS NSExceptionDomains entry 'bank.test' NSExceptionMinimumTLSVersion TLSv1.0 → "
                + "NSExceptionAllowsInsecureHTTPLoads YES and NSExceptionMinimumTLSVersion TLSv1.0")
        _ = update(&state, .character("E"))
        #expect(state.scenario?.client.ats.exceptionDomains == ["bank.test": written])
    }

    @Test("What differs from the lesson names the release, the handler and each ATS key")
    func changesFromTheLesson() throws {
        let lesson = try Self.lesson("02-forged-untrusted-ca")
        var edited = lesson
        for edit in [ScenarioEdit.nextLibrary, .nextChallengeHandler, .toggleArbitraryLoads, .toggleInsecureHTTPException(lesson: lesson)] {
            edited = edit.apply(to: edited).scenario
        }
        edited.client.ats.linkedBeforeIOS9 = true
        #expect(
            edited.changes(from: lesson) == [
                "library afnetworking-4 → afnetworking-3.1", "challenge handler afnetworking → acceptAll", "linkedBeforeIOS9 NO → YES",
                "ATS NSAllowsArbitraryLoads NO → YES", "ATS NSExceptionDomains entry 'bank.test' none → NSExceptionAllowsInsecureHTTPLoads YES",
            ])
    }

    @Test("The settings panel shows the release, the handler and which ATS keys are set, at 80 columns")
    func settingsPanel() throws {
        var state = ConsoleRenderTests.walkthrough("02-forged-untrusted-ca")
        let size = Size(columns: 80, rows: 24)
        #expect(Screen.shows("ATS: Apple's defaults (no NSAppTransportSecurity keys)", render(state, size: size).text))
        ConsoleUpdateTests.press(ConsoleUpdateTests.characters("LHSE"), &state)
        let text = render(state, size: size).text
        #expect(Screen.shows("App: AFNetworking 3.1; the app's block accepts every chain", text))
        #expect(
            Screen.shows(
                "ATS: NSAllowsArbitraryLoads YES; NSExceptionDomains 'bank.test' (NSExceptionAllowsInsecureHTTPLoads YES)", text))
        #expect(Screen.showsVerdict(try #require(state.report).verdict, text), "the verdict stays above the key hint")
    }

    @Test("An app linked before iOS 9 is shown with ATS off, whatever its Info.plist sets")
    func linkedBeforeIOS9() throws {
        var lesson = try Self.lesson("02-forged-untrusted-ca")
        #expect(lesson.client.ats.summary == "Apple's defaults (no NSAppTransportSecurity keys)")
        lesson.client.ats = AppTransportSecurity(linkedBeforeIOS9: true, allowsArbitraryLoads: true)
        #expect(lesson.client.ats.summary == "off: the app was linked before the iOS 9 SDK")
    }
}

/// The client keys' change lines with their verdicts, run for real. Each lesson's ATS and handler are set
/// here, so the lines do not depend on how the lesson files set them.
struct ClientKeyVerdictTests {
    /// `id` with `change` applied, run for real: the walkthrough a key then edits.
    static func run(_ id: String, _ change: (inout Scenario) -> Void) -> ConsoleState {
        var state = ClientKeyTests.opened(id, change)
        ConsoleApp.perform(.run, on: &state)
        return state
    }

    @Test("With ATS off, L reaches 2.5.1, whose default policy accepts a forgery nobody trusts without evaluating it")
    func libraryVerdict() {
        var state = Self.run("02-forged-untrusted-ca") { $0.client.ats = AppTransportSecurity(allowsArbitraryLoads: true) }
        ConsoleUpdateTests.press(ConsoleUpdateTests.characters("LLLLLL"), &state)
        #expect(state.change == "library afnetworking-2.5.2 → afnetworking-2.5.1: ACCEPTED at modeNoneWithoutEvaluation (was REJECTED at chainTrust)")
        #expect(state.report?.attackerView.readSecret == true)
    }

    @Test("S lets a forged chain that ATS refused through to a policy that accepts anything")
    func arbitraryLoadsVerdict() {
        var state = Self.run("08-allow-invalid-no-domain-check") { $0.client.ats = AppTransportSecurity() }
        #expect(state.report?.verdict == "REJECTED at atsServerTrust")
        ConsoleUpdateTests.press([.character("S")], &state)
        #expect(state.change == "ATS NSAllowsArbitraryLoads NO → YES: ACCEPTED at allowInvalidOverride (was REJECTED at atsServerTrust)")
    }

    @Test("E exempts the host from ATS's server-trust check, and the second E puts the check back")
    func exceptionVerdict() {
        var state = Self.run("08-allow-invalid-no-domain-check") { $0.client.ats = AppTransportSecurity() }
        ConsoleUpdateTests.press([.character("E")], &state)
        #expect(
            state.change
                == "ATS NSExceptionDomains entry 'bank.test' none → NSExceptionAllowsInsecureHTTPLoads YES: "
                + "ACCEPTED at allowInvalidOverride (was REJECTED at atsServerTrust)")
        ConsoleUpdateTests.press([.character("E")], &state)
        #expect(state.report?.verdict == "REJECTED at atsServerTrust")
        #expect(state.departure == nil)
    }

    @Test("With ATS off, H turns a refused forgery into one accepted by the accept-all block, then refused by the system")
    func handlerVerdict() {
        var state = Self.run("02-forged-untrusted-ca") { $0.client.ats = AppTransportSecurity(allowsArbitraryLoads: true) }
        ConsoleUpdateTests.press([.character("H")], &state)
        #expect(state.change == "challenge handler afnetworking → acceptAll: ACCEPTED at challengeHandler (was REJECTED at chainTrust)")
        #expect(state.report?.attackerView.readSecret == true)
        ConsoleUpdateTests.press([.character("H")], &state)
        #expect(state.change == "challenge handler acceptAll → systemDefault: REJECTED at systemTrust (was ACCEPTED at challengeHandler)")
        ConsoleUpdateTests.press([.character("H")], &state)
        #expect(state.report?.verdict == "REJECTED at chainTrust")
    }
}
