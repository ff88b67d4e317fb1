import PKI
import Policies
import Testing

/// How each client model words its settings above a run's trace: the iOS client in AFNetworking's own terms
/// (only the properties its release has), a peer library by its name and the lesson's pins it was given.
struct ClientSettingsTests {
    static func context(domain: String?, platform: Platform = .iOS13, pinned: [String] = ["bank-leaf"]) -> ClientSettingsContext {
        ClientSettingsContext(displayName: "Some Library 1", pinningMode: .publicKey, pinnedCertificates: pinned, domain: domain, platform: platform)
    }

    @Test func theIOSClientNamesItsReleaseItsHandlerItsATSAndThePoliciesOwnSettings() {
        let client = IOSClient(
            challengeHandler: .acceptAll,
            policy: SecurityPolicy(version: .v2_5_2, SSLPinningMode: .certificate, allowInvalidCertificates: true, validatesCertificateChain: false))
        #expect(
            client.settingsLines(Self.context(domain: "bank.test", platform: .iOS12)) == [
                "App: AFNetworking 2.5.2; the app's block accepts every chain, never asking AFSecurityPolicy; iOS 12",
                "ATS: Apple's defaults (no NSAppTransportSecurity keys)",
                "AFSecurityPolicy: pinning mode certificate, allowInvalidCertificates YES, validatesDomainName YES, validatesCertificateChain NO, "
                    + "pinned 'bank-leaf', domain 'bank.test'",
            ])
    }

    @Test func aReleaseWithoutAPropertyIsDescribedWithoutItAndADomainNotHandedOverIsNil() {
        let client = IOSClient(policy: SecurityPolicy(version: .v2_0, SSLPinningMode: .none, validatesDomainName: false))
        #expect(
            client.settingsLines(Self.context(domain: nil, pinned: []))[2]
                == "AFSecurityPolicy: pinning mode none, allowInvalidCertificates NO, nothing pinned, domain nil")
    }

    @Test(arguments: [
        Alamofire5Client() as any ClientModel, Alamofire4Client(), TrustKitClient(configuration: nil), OkHttpClient(), AndroidNetworkSecurityClient(),
        CurlClient(),
    ])
    func aPeerLibraryIsDescribedByItsNameAndTheLessonsPinsInItsTerms(_ client: any ClientModel) {
        #expect(
            client.settingsLines(Self.context(domain: "bank.test", pinned: ["bank-leaf", "bank-root"])) == [
                "App: Some Library 1", "The lesson's pins, in Some Library 1's terms: pinning mode publicKey, pinned 'bank-leaf', 'bank-root'",
            ])
    }
}
