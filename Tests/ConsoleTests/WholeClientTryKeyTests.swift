import Console
import Policies
import Simulation
import Testing

/// The "Try:" line of each lesson of group 8, pressed in the walkthrough: the key re-runs the lesson for
/// real, and the verdict moves to what the line says.
struct WholeClientTryKeyTests {
    /// The verdict, the step the line names, and what the attacker and the bank got, after `key`.
    static func after(_ key: Character, in id: String) -> (verdict: String?, steps: [TraceStep], read: Bool?, received: Bool?) {
        let state = LessonKeyTests.after(String(key), in: id)
        return (state.report?.verdict, state.report?.evaluation?.steps ?? [], state.report?.attackerView.readSecret, state.report?.serverReceivedRequest)
    }

    static func outcome(_ check: TraceStep.Check, in steps: [TraceStep]) -> TraceStep.Outcome? { steps.first { $0.check == check }?.outcome }

    @Test("32: E takes the exception away, and atsServerTrust refuses Mallory's self-signed certificate")
    func removingTheExceptionStopsTheForgery() {
        let now = Self.after("E", in: "32-self-signed-recipe-with-ats-exception")
        #expect(now.verdict == "REJECTED at atsServerTrust")
        #expect(now.read == false)
    }

    @Test("33: E adds the exception, atsServerTrust is skipped, and the login reaches the self-signed bank")
    func addingTheExceptionLetsTheLoginThrough() {
        let now = Self.after("E", in: "33-self-signed-recipe-without-ats-exception")
        #expect(now.verdict == "ACCEPTED at allowInvalidOverride")
        #expect(Self.outcome(.atsServerTrust, in: now.steps) == .skipped)
        #expect(now.received == true)
    }

    @Test("34: H gives the challenge to the system, and systemTrust refuses the forgery")
    func theSystemHandlerRefusesTheForgery() {
        let now = Self.after("H", in: "34-accept-all-challenge-block")
        #expect(now.verdict == "REJECTED at systemTrust")
        #expect(now.read == false)
    }

    @Test("35: S turns NSAllowsArbitraryLoads off, and atsScheme refuses http:// before any connection")
    func arbitraryLoadsOffRefusesPlainHTTP() {
        let now = Self.after("S", in: "35-plain-http-arbitrary-loads")
        #expect(now.verdict == "REJECTED at atsScheme")
        #expect(now.read == false)
    }

    @Test("36: v lets the bank speak TLS 1.2 or 1.3, so atsTLSVersion passes and chainTrust accepts the chain")
    func aModernBankIsAccepted() {
        let now = Self.after("v", in: "36-tls10-server-refused-by-ats")
        #expect(now.verdict == "ACCEPTED at chainTrust")
        #expect(Self.outcome(.atsTLSVersion, in: now.steps) == .passed)
    }

    @Test("37: E adds NSExceptionAllowsInsecureHTTPLoads: still accepted at chainTrust, with atsServerTrust skipped")
    func theInsecureLoadsKeySkipsTheServerTrust() {
        let before = Self.after("r", in: "37-tls10-server-with-exception")
        #expect(Self.outcome(.atsServerTrust, in: before.steps) == .note)
        let now = Self.after("E", in: "37-tls10-server-with-exception")
        #expect(now.verdict == "ACCEPTED at chainTrust")
        #expect(Self.outcome(.atsServerTrust, in: now.steps) == .skipped)
    }
}
