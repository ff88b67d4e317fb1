import Console
import Policies
import Simulation
import Testing

/// The "Try:" keys of the lessons on AFNetworking's history (38–42) do what their reveals say.
struct HistoryLessonKeyTests {
    static func after(_ keys: String, in id: String) -> ConsoleState {
        LessonKeyTests.after(keys, in: id)
    }

    @Test("L takes lesson 38 back to AFNetworking 2.5.0, whose default policy refuses the self-signed forgery")
    func lesson38() {
        let state = Self.after("L", in: "38-afnetworking-2-5-1-accepts-self-signed")
        #expect(state.scenario?.client.library == .afnetworking(.v2_5_0))
        #expect(state.report?.verdict == "REJECTED at chainTrust")
        #expect(state.report?.attackerView.readSecret == false)
    }

    @Test("d in lesson 39 checks the host, and the attacker.test leaf fails with hostnameMismatch")
    func lesson39() throws {
        let state = Self.after("d", in: "39-afnetworking-2-5-2-wrong-host")
        #expect(state.report?.verdict == "REJECTED at chainTrust")
        let reason = try #require(state.report?.evaluation?.rejection)
        #expect(reason.code == "hostnameMismatch", "\(reason)")
    }

    @Test("L takes lesson 40 to AFNetworking 2.5.2 keeping validatesDomainName YES, and d then gives lesson 39")
    func lesson40() {
        var state = Self.after("L", in: "40-afnetworking-2-5-3-refuses-wrong-host")
        #expect(state.scenario?.client.library == .afnetworking(.v2_5_2))
        #expect(state.scenario?.client.policy.validatesDomainName == true)
        #expect(state.report?.verdict == "REJECTED at chainTrust")
        ConsoleUpdateTests.press([.character("d")], &state)
        let lesson39 = ConsoleRenderTests.walkthrough("39-afnetworking-2-5-2-wrong-host")
        #expect(state.report?.verdict == lesson39.report?.verdict)
        #expect(state.report?.attackerView.readSecret == true)
    }

    @Test("L takes lesson 41 from AFNetworking 2.0 to 4, whose chainTrust refuses the expired leaf")
    func lesson41() {
        let state = Self.after("L", in: "41-afnetworking-2-0-certificate-mode-ignores-trust")
        #expect(state.scenario?.client.library == .afnetworking(.v4))
        #expect(state.report?.verdict == "REJECTED at chainTrust")
        #expect(state.report?.evaluation?.decidingStep?.detail.contains("'bank-leaf-2024' expired") == true)
    }

    @Test("A until stolenKey in lesson 42: no client certificate is asked for, and Mallory reads the password")
    func lesson42() throws {
        var state = ConsoleRenderTests.walkthrough("42-two-way-tls-wrong-p12-password")
        let lesson = try #require(state.scenario)
        for _ in AttackSpec.choices(in: lesson) where state.scenario?.attacker.attack != .stolenKey {
            ConsoleUpdateTests.press([.character("A")], &state)
        }
        #expect(state.scenario?.attacker.attack == .stolenKey)
        #expect(state.report?.evaluation?.steps.contains { $0.check == .clientCertificate } == false)
        #expect(state.report?.attackerView.readSecret == true)
    }
}
