import Foundation
import PKI
import Policies
import Testing

/// The whole iOS client: ATS, the challenge handler, AFSecurityPolicy and the client certificate, in one trace.
struct IOSClientTests {
    let world = BankWorld.shared
    static let tls13 = AppTransportSecurityTests.tls13

    /// The articles' recipe for a self-signed server: no chain evaluation and no host name check.
    static let selfSignedRecipe = SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false)
    static let bankException = AppTransportSecurity(exceptionDomains: ["bank.test": .init(allowsInsecureHTTPLoads: true)])

    func selfSigned() throws -> Certificate {
        try world.factory.forge(impersonating: world.leaf.certificate, signedBy: nil).certificate
    }

    func evaluate(_ client: IOSClient, _ chain: [Certificate], host: String = "bank.test", domain: String? = "bank.test") -> PolicyEvaluation {
        client.evaluate(serverTrust: world.trust(chain), negotiated: Self.tls13, host: host, domain: domain)
    }

    // MARK: - AFNetworking's handler

    @Test func theDefaultClientTrustsTheRealChainThroughEveryGateInOrder() {
        let evaluation = evaluate(IOSClient(), world.realChain)
        #expect(
            evaluation.steps == [
                TraceStep(.atsScheme, .passed, "the URL is https://, the secure connection ATS requires"),
                TraceStep(
                    .atsTLSVersion, .passed,
                    "TLS 1.3 was negotiated; ATS requires at least TLS 1.2 and no NSExceptionDomains entry for 'bank.test' lowers it, so it is allowed"),
                TraceStep(.atsCipherSuite, .passed, "TLS_AES_128_GCM_SHA256 is a TLS 1.3 suite: every one is forward secret, and ATS accepts them"),
                TraceStep(
                    .atsCertificateStrength, .passed,
                    "the leaf 'bank.test' has an EC P-256 key and is signed with SHA-256; ATS asks for SHA-256 or better and "
                        + "an RSA key of at least 2048 bits or an EC key of at least 256 bits"),
                TraceStep(
                    .challengeHandler, .note,
                    "AFURLSessionManager has no challenge block from the app, so it asks the security policy (afnetworking-4): "
                        + "evaluateServerTrust:forDomain:@\"bank.test\""),
                TraceStep(.domainGuard, .passed, "allowInvalidCertificates is NO, so the settings are not contradictory"),
                TraceStep(.policySelection, .note, "validatesDomainName is YES: SSL policy for host 'bank.test', which the leaf must name in its SAN"),
                TraceStep(
                    .chainTrust, .passed,
                    "the device trust store validates the chain (SecTrustEvaluate: kSecTrustResultUnspecified, which AFServerTrustIsValid "
                        + "accepts): path 'bank.test' -> 'Bank Intermediate' -> 'Bank Root', "
                        + "ending at 'Bank Root', a root built into iOS"),
                TraceStep(.challengeDisposition, .note, "the policy said YES: UseCredential with credentialForTrust:"),
                TraceStep(
                    .atsServerTrust, .note,
                    "ATS also asks the system's default evaluation (SSL policy for 'bank.test', the device trust store), which trusts the chain "
                        + "(kSecTrustResultUnspecified): path 'bank.test' -> 'Bank Intermediate' -> 'Bank Root', ending at 'Bank Root', a root built into iOS; "
                        + "the handler's answer stands"),
            ])
        #expect(evaluation.isTrusted && evaluation.urlError == nil)
        #expect(evaluation.decidingStep?.check == .chainTrust)
        #expect(evaluation.path == [world.leaf.certificate, world.intermediate.certificate, world.root.certificate])
    }

    @Test func afNetworking4ReportsARejectedForgeryAsServerCertificateUntrusted() {
        let evaluation = evaluate(IOSClient(), world.forgedChain)
        #expect(evaluation.decidingStep?.check == .chainTrust)
        #expect(evaluation.rejection?.code == "untrustedRoot")
        #expect(
            evaluation.steps.suffix(2) == [
                TraceStep(
                    .challengeDisposition, .note,
                    "the policy said NO: CancelAuthenticationChallenge; AFNetworking 4 reports the task's failure as NSURLError -1202 "
                        + "NSURLErrorServerCertificateUntrusted rather than URLSession's NSURLError -999 NSURLErrorCancelled, which 3.1–3.2.1 pass on"),
                TraceStep(.atsServerTrust, .skipped, "the handler cancelled the challenge, so there is no connection left for ATS to judge"),
            ])
        #expect(evaluation.urlError == .serverCertificateUntrusted)
    }

    @Test func anOlderAFNetworkingPassesOnURLSessionsCancellation() {
        let client = IOSClient(policy: SecurityPolicy(version: .v2_6))
        let evaluation = evaluate(client, world.forgedChain)
        #expect(evaluation.rejection?.code == "untrustedRoot")
        #expect(
            evaluation.steps.first { $0.check == .challengeDisposition }
                == TraceStep(
                    .challengeDisposition, .note, "the policy said NO: CancelAuthenticationChallenge; the task fails with NSURLError -999 NSURLErrorCancelled"))
        #expect(evaluation.urlError == .cancelled)
        #expect(evaluation.verdict == "NOT TRUSTED: untrustedRoot (decided at chainTrust), NSURLError -999 NSURLErrorCancelled")
    }

    @Test func afNetworking20IsAskedWithoutADomain() {
        let evaluation = evaluate(IOSClient(policy: SecurityPolicy(version: .v2_0)), world.realChain)
        #expect(
            evaluation.steps.first { $0.check == .challengeHandler }?.detail
                == "AFURLSessionManager has no challenge block from the app, so it asks the security policy (afnetworking-2.0): evaluateServerTrust:")
    }

    @Test func aNilDomainIsPassedToThePolicyAsNil() {
        let evaluation = evaluate(IOSClient(), world.realChain, domain: nil)
        #expect(evaluation.steps.first { $0.check == .challengeHandler }?.detail.hasSuffix("evaluateServerTrust:forDomain:nil") == true)
    }

    // MARK: - ATS after the handler

    @Test func theSelfSignedRecipeWithoutAnATSExceptionIsRefusedByATSAfterAFSaysYes() throws {
        let evaluation = evaluate(IOSClient(policy: Self.selfSignedRecipe), [try selfSigned()])
        #expect(evaluation.steps.contains(TraceStep(.challengeDisposition, .note, "the policy said YES: UseCredential with credentialForTrust:")))
        #expect(
            evaluation.decidingStep
                == TraceStep(
                    .atsServerTrust, .failed,
                    "the handler accepted the chain, but ATS requires the system's default evaluation (SSL policy for 'bank.test', the device "
                        + "trust store) to trust it as well, and it does not (kSecTrustResultRecoverableTrustFailure): 'self-signed bank.test' is self-signed and is not among the trust "
                        + "anchors. An NSExceptionDomains entry for 'bank.test' with NSExceptionAllowsInsecureHTTPLoads YES, or "
                        + "NSAllowsArbitraryLoads YES, would leave the server trust to the handler"))
        #expect(evaluation.rejection?.code == "atsCertificateTrustViolation")
        #expect(evaluation.urlError == .secureConnectionFailed)
    }

    @Test func theSelfSignedRecipeWithTheATSExceptionAcceptsTheSelfSignedServerAndAnAttackersToo() throws {
        let client = IOSClient(ats: Self.bankException, policy: Self.selfSignedRecipe)
        for chain in [[try selfSigned()], world.forgedChain] {
            let evaluation = evaluate(client, chain)
            #expect(evaluation.isTrusted)
            #expect(evaluation.decidingStep?.check == .allowInvalidOverride)
            #expect(
                evaluation.steps.last
                    == TraceStep(
                        .atsServerTrust, .skipped,
                        "NSExceptionAllowsInsecureHTTPLoads is YES in the NSExceptionDomains entry 'bank.test', so ATS leaves the server trust "
                            + "to the app's handler"))
        }
    }

    @Test func anEntryWithoutAllowsInsecureHTTPLoadsNamesItselfAsTheRemedy() throws {
        let client = IOSClient(ats: AppTransportSecurity(exceptionDomains: ["bank.test": .init(minimumTLSVersion: .tls10)]), policy: Self.selfSignedRecipe)
        let evaluation = evaluate(client, [try selfSigned()])
        #expect(evaluation.decidingStep?.check == .atsServerTrust)
        #expect(
            evaluation.decidingStep?.detail.hasSuffix(
                "NSExceptionAllowsInsecureHTTPLoads YES in the NSExceptionDomains entry 'bank.test' would leave the server trust to the handler") == true)
    }

    // MARK: - The accept-all block

    @Test func acceptAllTakesAnUntrustedForgeryWhenATSIsOff() {
        let client = IOSClient(ats: AppTransportSecurity(allowsArbitraryLoads: true), challengeHandler: .acceptAll)
        let evaluation = evaluate(client, world.forgedChain)
        #expect(
            evaluation.steps.filter { $0.check == .challengeHandler || $0.check == .challengeDisposition } == [
                TraceStep(.challengeHandler, .passed, "the app's challenge block answers UseCredential with credentialForTrust: without evaluating anything"),
                TraceStep(.challengeDisposition, .note, "UseCredential with credentialForTrust:, whatever the chain"),
            ])
        #expect(!evaluation.steps.contains { $0.check == .chainTrust }, "the policy is never asked")
        #expect(evaluation.isTrusted)
        #expect(evaluation.decidingStep?.check == .challengeHandler)
        #expect(evaluation.path.isEmpty)
    }

    @Test func acceptAllIsStillRefusedByATSWhenTheDomainIsNotExempt() {
        let evaluation = evaluate(IOSClient(challengeHandler: .acceptAll), world.forgedChain)
        #expect(evaluation.decidingStep?.check == .atsServerTrust)
        #expect(evaluation.rejection?.code == "atsCertificateTrustViolation")
        #expect(evaluation.urlError?.code == -1200)
        #expect(evaluation.path == [world.forged.certificate, world.attackerCA.certificate])
    }

    // MARK: - No delegate

    @Test func theSystemDefaultTrustsTheRealChainAndATSHasNothingToAdd() {
        let evaluation = evaluate(IOSClient(challengeHandler: .systemDefault), world.realChain)
        #expect(
            Array(evaluation.steps.dropFirst(4)) == [
                TraceStep(
                    .challengeHandler, .note,
                    "the app has no challenge delegate method, so URLSession performs the default handling: the system's own evaluation"),
                TraceStep(
                    .systemTrust, .passed,
                    "the system's default evaluation (SSL policy for 'bank.test', the device trust store) trusts the chain "
                        + "(kSecTrustResultUnspecified): "
                        + "path 'bank.test' -> 'Bank Intermediate' -> 'Bank Root', ending at 'Bank Root', a root built into iOS"),
                TraceStep(.challengeDisposition, .note, "PerformDefaultHandling: the system trusts the chain, so the connection goes on"),
                TraceStep(.atsServerTrust, .skipped, "the handler's answer was the system's default evaluation, the one ATS would ask"),
            ])
        #expect(evaluation.isTrusted)
        #expect(evaluation.decidingStep?.check == .systemTrust)
    }

    @Test func theSystemDefaultRefusesAForgeryWithServerCertificateUntrusted() {
        let evaluation = evaluate(IOSClient(challengeHandler: .systemDefault), world.forgedChain)
        #expect(
            evaluation.decidingStep
                == TraceStep(
                    .systemTrust, .failed,
                    "the system's default evaluation (SSL policy for 'bank.test', the device trust store) does not trust the chain "
                        + "(kSecTrustResultRecoverableTrustFailure): "
                        + "'Attacker CA' is self-signed and is not among the trust anchors"))
        #expect(evaluation.rejection?.code == "untrustedRoot")
        #expect(evaluation.urlError == .serverCertificateUntrusted)
    }

    @Test func theSystemChecksTheURLsHostWhateverDomainAFWouldBeGiven() {
        let evaluation = evaluate(IOSClient(challengeHandler: .systemDefault), world.realChain, host: "shop.test", domain: nil)
        #expect(evaluation.rejection?.code == "hostnameMismatch")
        #expect(evaluation.decidingStep?.check == .systemTrust)
    }

    @Test func aDeviceThatTrustsTheAttackersCAAcceptsTheForgeryEvenThroughATS() {
        let evaluation = IOSClient(challengeHandler: .acceptAll).evaluate(
            serverTrust: world.trust(world.forgedChain, attackerInstalled: true), negotiated: Self.tls13, host: "bank.test", domain: "bank.test")
        #expect(evaluation.isTrusted)
        // Certificate Transparency's note follows: an installed root is exempt.
        #expect(evaluation.steps.suffix(2).map(\.check) == [.atsServerTrust, .certificateTransparency])
        #expect(evaluation.steps.suffix(2).map(\.outcome) == [.note, .note])
        #expect(evaluation.decidingStep?.check == .challengeHandler)
    }

    // MARK: - Reports

    @Test func theJSONCarriesTheErrorTheAppSees() throws {
        let evaluation = evaluate(IOSClient(challengeHandler: .acceptAll), world.forgedChain)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(evaluation.json().utf8)) as? [String: Any])
        #expect(Set(json.keys) == ["trusted", "steps", "path", "reason", "urlError"])
        let error = try #require(json["urlError"] as? [String: Any])
        #expect(error["code"] as? Int == -1200)
        #expect(error["name"] as? String == "NSURLErrorSecureConnectionFailed")
        #expect(json["reason"] as? String == "atsCertificateTrustViolation")
    }

    // MARK: - The client certificate

    func clientIdentity() throws -> Identity {
        var spec = CertificateSpec.serverLeaf(
            label: "app client", dnsNames: [], notBefore: world.leaf.certificate.notBefore, notAfter: world.leaf.certificate.notAfter)
        spec.subject = DistinguishedName(commonName: "Mobile App Client")
        spec.extendedKeyUsage = [.clientAuth]
        return try world.factory.makeIdentity(spec)
    }

    @Test func theAppsP12OpensWithItsPasswordAndAnswersTheClientCertificateChallenge() throws {
        let identity = try clientIdentity()
        let (imported, step) = IOSClient.importClientIdentity(pkcs12: try identity.pkcs12(password: "123456"), password: "123456", file: "client.p12")
        #expect(imported?.certificate == identity.certificate)
        #expect(step.check == .clientCertificate && step.outcome == .note)
        #expect(step.detail.hasPrefix("the server asked for a client certificate: SecPKCS12Import opened 'client.p12' with the app's password"))
    }

    @Test func aWrongP12PasswordFailsWithErrSecAuthFailedAndTheRequestGoesOutWithoutACertificate() throws {
        let bytes = try clientIdentity().pkcs12(password: "123456")
        let (imported, step) = IOSClient.importClientIdentity(pkcs12: bytes, password: "654321", file: "client.p12")
        #expect(imported == nil)
        #expect(
            step
                == TraceStep(
                    .clientCertificate, .note,
                    "the server asked for a client certificate: SecPKCS12Import of 'client.p12' fails with errSecAuthFailed (-25293) because "
                        + "the app's password does not open it, so the request goes out without a client certificate"))
    }

    @Test func aDamagedP12IsNotMistakenForAWrongPassword() throws {
        let bytes = try clientIdentity().pkcs12(password: "123456")
        let (imported, step) = IOSClient.importClientIdentity(pkcs12: Array(bytes.prefix(40)), password: "123456", file: "client.p12")
        #expect(imported == nil)
        #expect(step.detail.hasPrefix("the server asked for a client certificate: SecPKCS12Import cannot read 'client.p12' (client.p12: not a PKCS#12"))
        #expect(!step.detail.contains("errSecAuthFailed"))
    }

    @Test func theClientCertificateStepFollowsTheVerdictWithoutChangingIt() throws {
        let bytes = try clientIdentity().pkcs12(password: "123456")
        let rejected = evaluate(IOSClient(), world.forgedChain)
        let step = IOSClient.importClientIdentity(pkcs12: bytes, password: "wrong", file: "client.p12").step
        let after = rejected.appending(step)
        #expect(after.steps == rejected.steps + [step])
        #expect(after.rejection == rejected.rejection && after.urlError == rejected.urlError)
        #expect(after.decidingStep == rejected.decidingStep)
        #expect(
            evaluate(IOSClient(), world.realChain).appending(IOSClient.noClientIdentity).steps.last
                == TraceStep(
                    .clientCertificate, .note,
                    "the server asked for a client certificate and the app has no identity to answer with, so the request goes out without one"))
    }
}
