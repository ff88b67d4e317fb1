import Console
import Policies
import Simulation
import Testing

/// The "Try:" line of each lesson of group 9, pressed in the walkthrough: the key re-runs the lesson for
/// real, and the verdict moves to what the line says.
struct PinningLibraryTryKeyTests {
    @Test("43: L gives the pin to the AFNetworking 4 iOS client, and pinnedPublicKeyMatch refuses the appended chain")
    func afnetworkingLooksForThePinOnThePath() {
        let now = WholeClientTryKeyTests.after("L", in: "43-appended-pinned-certificate-old-okhttp")
        #expect(now.verdict == "REJECTED at pinnedPublicKeyMatch")
        #expect(now.read == false)
    }

    @Test("44: P and pinning public-ca too puts a pinned key on the cleaned chain, and the mis-issued certificate gets through")
    func pinningTheIssuingCALetsTheMisissuedCertificateThrough() {
        // The pins screen lists bank-root, bank-intermediate, public-ca, bank-leaf, mallory.
        let state = LessonKeyTests.after("Pjj q", in: "44-appended-pinned-certificate-today-okhttp")
        #expect(state.scenario?.client.policy.pinnedCertificates == ["bank-leaf", "public-ca"])
        #expect(state.report?.verdict == "ACCEPTED at okHttpCertificatePinner")
        #expect(state.report?.attackerView.readSecret == true)
    }

    @Test("45: t switches full trust for attacker-ca off, and trustKitChainValidation blocks the forgery in report-only")
    func reportOnlyNeverRelaxesTheChain() {
        let now = WholeClientTryKeyTests.after("t", in: "45-trustkit-report-only")
        #expect(now.verdict == "REJECTED at trustKitChainValidation")
        #expect(now.read == false)
    }

    @Test("46: L gives the pin to the AFNetworking 4 iOS client, whose pins never expire: pinnedPublicKeyMatch refuses")
    func afnetworkingPinsDoNotExpire() {
        let now = WholeClientTryKeyTests.after("L", in: "46-expired-android-pin-set")
        #expect(now.verdict == "REJECTED at pinnedPublicKeyMatch")
        #expect(now.read == false)
    }

    @Test("47: p pins bank-leaf's key, and androidPinSet refuses the forgery though the user's CA is still trusted")
    func aPinSetRefusesTheUserCAsForgery() {
        let now = WholeClientTryKeyTests.after("p", in: "47-user-ca-android-target-sdk-23")
        #expect(now.verdict == "REJECTED at androidPinSet")
        #expect(WholeClientTryKeyTests.outcome(.androidTrustAnchors, in: now.steps) == .passed)
        #expect(now.read == false)
    }

    @Test("48: L runs the same settings in the AFNetworking 4 iOS client, and chainTrust accepts the user's fully trusted CA")
    func iOSTrustsTheUsersCAForEveryApp() {
        let now = WholeClientTryKeyTests.after("L", in: "48-user-ca-android-target-sdk-24")
        #expect(now.verdict == "ACCEPTED at chainTrust")
        #expect(now.read == true)
    }

    @Test("49: P, unpinning public-ca and pinning bank-leaf, makes okHttpCertificatePinner refuse the mis-issued certificate")
    func pinningTheLeafRefusesTheMisissuedCertificate() {
        // The pins screen lists public-root, public-ca, bank-leaf.
        let state = LessonKeyTests.after("Pj j q", in: "49-ca-pin-in-every-library")
        #expect(state.scenario?.client.policy.pinnedCertificates == ["bank-leaf"])
        #expect(state.report?.verdict == "REJECTED at okHttpCertificatePinner")
        #expect(state.report?.attackerView.readSecret == false)
    }
}
