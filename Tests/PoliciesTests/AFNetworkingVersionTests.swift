import Foundation
import PKI
import Policies
import Testing

/// Every AFNetworking release's `AFSecurityPolicy` on real generated chains: verdict, deciding step and reason
/// for each mode and each setting the release has (reference §2, checked against each tag's source).
struct AFNetworkingVersionTests {
    /// The bank's real chain plus the chains the releases disagree on.
    struct World: Sendable {
        static let shared = try! World()
        let bank = BankWorld.shared
        let selfSigned: Certificate, expiredLeaf: Certificate, wildcard: Certificate
        let privateRoot: Certificate, privateChain: [Certificate]

        init() throws {
            let factory = bank.factory
            let start = AFFixtures.date("2026-01-01T00:00:00Z")
            let end = AFFixtures.date("2027-01-01T00:00:00Z")
            func selfSignedLeaf(_ label: String, commonName: String, dnsNames: [String]) throws -> Certificate {
                try factory.makeIdentity(
                    CertificateSpec(
                        label: label, subject: DistinguishedName(commonName: commonName), dnsNames: dnsNames, notBefore: start,
                        notAfter: end, keyUsage: [.digitalSignature], extendedKeyUsage: [.serverAuth])
                ).certificate
            }
            selfSigned = try selfSignedLeaf("self-signed bank.test", commonName: "bank.test", dnsNames: ["bank.test"])
            wildcard = try selfSignedLeaf("self-signed *.bank.test", commonName: "*.bank.test", dnsNames: ["*.bank.test"])
            // The bank's own key, in a certificate that expired before the clock.
            expiredLeaf = try factory.issue(
                .serverLeaf(
                    label: "expired bank.test", dnsNames: ["bank.test"], notBefore: AFFixtures.date("2024-01-01T00:00:00Z"),
                    notAfter: AFFixtures.date("2025-01-01T00:00:00Z")),
                key: bank.leaf.privateKey, signedBy: bank.intermediate)
            let root = try factory.makeIdentity(.authority(label: "Private Root", commonName: "Private Root", notBefore: start, notAfter: end))
            let intermediate = try factory.makeIdentity(
                .authority(label: "Private Intermediate", commonName: "Private Intermediate", pathLength: 0, notBefore: start, notAfter: end),
                signedBy: root)
            let leaf = try factory.makeIdentity(
                .serverLeaf(label: "private bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: end), signedBy: intermediate)
            privateRoot = root.certificate
            // The server does not send its private root.
            privateChain = [leaf.certificate, intermediate.certificate]
        }

        func chain(_ chain: Chain) -> [Certificate] {
            switch chain {
            case .valid: bank.realChain
            case .selfSigned: [selfSigned]
            case .expired: [expiredLeaf, bank.intermediate.certificate]
            case .forged: bank.forgedChain
            case .wildcard: [wildcard]
            case .privateRootNotSent: privateChain
            }
        }

        func certificate(_ pin: Pin) -> Certificate {
            switch pin {
            case .leaf: bank.leaf.certificate
            case .intermediate: bank.intermediate.certificate
            case .root: bank.root.certificate
            case .selfSigned: selfSigned
            case .wildcard: wildcard
            case .privateRoot: privateRoot
            }
        }

        /// The trust as the session's challenge hands it over: SSL policy for the host the app connected to.
        func trust(_ chain: Chain, host: String) -> ServerTrust {
            ServerTrust(
                certificates: self.chain(chain), deviceTrustStore: DeviceTrustStore(system: [bank.root.certificate]), policy: .ssl(host: host),
                verifyDate: BankWorld.clock)
        }
    }

    enum Chain: String, Sendable {
        case valid, selfSigned, expired, forged, wildcard, privateRootNotSent
    }
    enum Pin: String, Sendable {
        case leaf, intermediate, root, selfSigned, wildcard, privateRoot
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let version: AFNetworkingVersion
        let mode: SSLPinningMode
        let allowInvalid: Bool, validatesDomainName: Bool, validatesCertificateChain: Bool
        let pinned: [Pin]
        let chain: Chain
        let host: String
        let trusted: Bool
        let deciding: TraceStep.Check
        let reason: String?

        /// `V` defaults to the release's own default for the mode, `C` to YES (every release that has it).
        init(
            _ version: AFNetworkingVersion, _ mode: SSLPinningMode, A allowInvalid: Bool = false, V validatesDomainName: Bool? = nil,
            C validatesCertificateChain: Bool = true, _ pinned: [Pin], _ chain: Chain, at host: String = "bank.test", _ trusted: Bool,
            _ deciding: TraceStep.Check, _ reason: String? = nil
        ) {
            (self.version, self.mode, self.allowInvalid) = (version, mode, allowInvalid)
            self.validatesDomainName = validatesDomainName ?? version.defaultValidatesDomainName(for: mode)
            self.validatesCertificateChain = validatesCertificateChain
            (self.pinned, self.chain, self.host, self.trusted, self.deciding, self.reason) = (pinned, chain, host, trusted, deciding, reason)
        }

        var testDescription: String {
            "\(version.rawValue) \(mode) A=\(allowInvalid ? "Y" : "N") V=\(validatesDomainName ? "Y" : "N") "
                + "C=\(validatesCertificateChain ? "Y" : "N") {\(pinned.map(\.rawValue).joined(separator: ","))} \(chain.rawValue) @\(host) "
                + "→ \(trusted ? "YES" : "NO") at \(deciding.rawValue)"
        }
    }

    static let cases: [Case] = [
        // 4.x, for contrast: the private root the server does not send is found by anchoring.
        Case(.v4, .certificate, A: true, [.privateRoot], .privateRootNotSent, true, .pinnedCertificateMatch),
        Case(.v4, .none, [], .valid, at: "other.test", false, .chainTrust, "hostnameMismatch"),

        // 2.6: the domain guard; any pinned certificate of the chain read before anchoring.
        Case(.v2_6, .none, A: true, [], .selfSigned, false, .domainGuard, "contradictorySettings"),
        Case(.v2_6, .none, [], .valid, true, .chainTrust),
        Case(.v2_6, .none, [], .valid, at: "other.test", false, .chainTrust, "hostnameMismatch"),
        Case(.v2_6, .certificate, [.leaf], .valid, true, .pinnedCertificateMatch),
        Case(.v2_6, .certificate, [.root], .forged, false, .chainTrust, "untrustedRoot"),
        Case(.v2_6, .certificate, A: true, [.privateRoot], .privateRootNotSent, false, .pinnedCertificateMatch, "pinnedCertificateNotInPath"),
        Case(.v2_6, .publicKey, [.intermediate], .valid, true, .pinnedPublicKeyMatch),
        Case(.v2_6, .publicKey, A: true, [.leaf], .expired, true, .pinnedPublicKeyMatch),

        // 2.5.3: validatesDomainName YES by default, no domain guard yet, validatesCertificateChain.
        Case(.v2_5_3, .none, [], .valid, at: "other.test", false, .chainTrust, "hostnameMismatch"),
        Case(.v2_5_3, .none, [], .valid, true, .chainTrust),
        Case(.v2_5_3, .none, A: true, [], .selfSigned, true, .allowInvalidOverride),
        Case(.v2_5_3, .certificate, C: false, [.root], .valid, true, .pinnedAnchors),
        Case(.v2_5_3, .certificate, [.root], .valid, false, .everyCertificatePinned, "unpinnedCertificateInPath"),
        Case(.v2_5_3, .publicKey, [.leaf, .intermediate, .root], .valid, true, .everyPublicKeyPinned),
        Case(.v2_5_3, .publicKey, C: false, [.leaf], .valid, true, .pinnedPublicKeyMatch),

        // 2.5.2: mode none evaluates again, but the default policy checks no host name (CVE-2015-3996).
        Case(.v2_5_2, .none, [], .valid, at: "other.test", true, .chainTrust),
        Case(.v2_5_2, .none, [], .selfSigned, false, .chainTrust, "untrustedRoot"),
        Case(.v2_5_2, .none, A: true, [], .selfSigned, true, .allowInvalidOverride),
        Case(.v2_5_2, .none, V: true, [], .valid, at: "other.test", false, .chainTrust, "hostnameMismatch"),
        Case(.v2_5_2, .certificate, [.leaf, .intermediate, .root], .valid, true, .everyCertificatePinned),
        Case(.v2_5_2, .certificate, [.leaf], .valid, at: "other.test", false, .chainTrust, "hostnameMismatch"),

        // 2.5.1: mode none accepts anything without evaluating it.
        Case(.v2_5_1, .none, [], .valid, true, .modeNoneWithoutEvaluation),
        Case(.v2_5_1, .none, [], .selfSigned, true, .modeNoneWithoutEvaluation),
        Case(.v2_5_1, .none, [], .expired, true, .modeNoneWithoutEvaluation),
        Case(.v2_5_1, .none, [], .valid, at: "other.test", true, .modeNoneWithoutEvaluation),
        Case(.v2_5_1, .none, V: true, [], .forged, true, .modeNoneWithoutEvaluation),
        Case(.v2_5_1, .certificate, [.leaf], .valid, false, .everyCertificatePinned, "unpinnedCertificateInPath"),
        Case(.v2_5_1, .certificate, C: false, [.leaf], .valid, true, .pinnedAnchors),
        Case(.v2_5_1, .certificate, [.leaf, .intermediate, .root], .valid, true, .everyCertificatePinned),
        Case(.v2_5_1, .certificate, A: true, [.selfSigned], .selfSigned, true, .everyCertificatePinned),
        Case(.v2_5_1, .certificate, [.selfSigned], .selfSigned, false, .chainTrust, "untrustedRoot"),
        Case(.v2_5_1, .certificate, A: true, [.selfSigned], .selfSigned, at: "other.test", false, .pinnedAnchors, "hostnameMismatch"),
        Case(.v2_5_1, .publicKey, C: false, [.leaf], .valid, true, .pinnedPublicKeyMatch),
        Case(.v2_5_1, .publicKey, C: false, [.intermediate], .valid, false, .pinnedPublicKeyMatch, "leafPublicKeyNotPinned"),
        Case(.v2_5_1, .publicKey, [.leaf], .valid, false, .everyPublicKeyPinned, "unpinnedPublicKeyInPath"),

        // 2.5.0: the default policy checks no host name; allowInvalid is read after the evaluation.
        Case(.v2_5_0, .none, [], .valid, at: "other.test", true, .chainTrust),
        Case(.v2_5_0, .none, [], .selfSigned, false, .chainTrust, "untrustedRoot"),
        Case(.v2_5_0, .none, A: true, [], .selfSigned, true, .allowInvalidOverride),
        Case(.v2_5_0, .certificate, [.leaf, .intermediate, .root], .valid, true, .everyCertificatePinned),
        Case(.v2_5_0, .publicKey, A: true, C: false, [.leaf], .expired, true, .pinnedPublicKeyMatch),

        // 2.2.0: CFNetwork's policy (which checks the host), allowInvalid skips validity in pinning modes, the CN check.
        Case(.v2_2, .none, [], .valid, at: "other.test", false, .chainTrust, "hostnameMismatch"),
        Case(.v2_2, .none, A: true, [], .selfSigned, true, .allowInvalidOverride),
        Case(.v2_2, .certificate, A: true, [.selfSigned], .selfSigned, true, .commonNameMatch),
        Case(.v2_2, .certificate, A: true, [.selfSigned], .selfSigned, at: "other.test", false, .commonNameMatch, "commonNameMismatch"),
        Case(.v2_2, .certificate, A: true, V: false, [.selfSigned], .selfSigned, at: "other.test", true, .everyCertificatePinned),
        Case(.v2_2, .certificate, [.selfSigned], .selfSigned, false, .chainTrust, "untrustedRoot"),
        Case(.v2_2, .certificate, A: true, [.wildcard], .wildcard, at: "www.bank.test", true, .commonNameMatch),
        Case(.v2_2, .certificate, A: true, [.wildcard], .wildcard, at: "bank.test", false, .commonNameMatch, "commonNameMismatch"),
        Case(.v2_2, .certificate, A: true, [.wildcard], .wildcard, at: "a.b.bank.test", false, .commonNameMatch, "commonNameMismatch"),
        Case(.v2_2, .certificate, C: false, [.leaf], .valid, true, .commonNameMatch),
        Case(.v2_2, .certificate, C: false, [.intermediate], .valid, false, .pinnedCertificateMatch, "leafCertificateNotPinned"),
        Case(.v2_2, .certificate, [.leaf], .valid, false, .everyCertificatePinned, "unpinnedCertificateInPath"),
        Case(.v2_2, .publicKey, A: true, C: false, [.leaf], .expired, true, .commonNameMatch),
        Case(.v2_2, .publicKey, [.leaf, .intermediate], .valid, false, .everyPublicKeyPinned, "unpinnedPublicKeyInPath"),

        // 2.1.0: a valid chain in every pinning mode, so no pinned self-signed certificate; the CN check never runs.
        Case(.v2_1, .none, A: true, [], .selfSigned, true, .allowInvalidOverride),
        Case(.v2_1, .none, [], .valid, at: "other.test", false, .chainTrust, "hostnameMismatch"),
        Case(.v2_1, .certificate, A: true, [.selfSigned], .selfSigned, false, .chainTrust, "untrustedRoot"),
        Case(.v2_1, .publicKey, A: true, C: false, [.selfSigned], .selfSigned, false, .chainTrust, "untrustedRoot"),
        Case(.v2_1, .certificate, [.leaf], .valid, false, .everyCertificatePinned, "unpinnedCertificateInPath"),
        Case(.v2_1, .certificate, [.leaf, .intermediate, .root], .valid, true, .everyCertificatePinned),
        Case(.v2_1, .certificate, C: false, [.leaf], .valid, true, .pinnedCertificateMatch),
        Case(.v2_1, .publicKey, [.leaf, .intermediate, .root], .valid, true, .everyPublicKeyPinned),
        Case(.v2_1, .publicKey, C: false, [.root], .valid, false, .pinnedPublicKeyMatch, "leafPublicKeyNotPinned"),

        // 2.0: no domain; pinning modes never check the trust result and ignore allowInvalid.
        Case(.v2_0, .none, [], .valid, at: "other.test", false, .chainTrust, "hostnameMismatch"),
        Case(.v2_0, .none, A: true, [], .selfSigned, true, .allowInvalidOverride),
        Case(.v2_0, .certificate, [.leaf], .expired, false, .pinnedCertificateMatch, "pinnedCertificateNotInPath"),
        Case(.v2_0, .certificate, [.intermediate], .expired, true, .pinnedCertificateMatch),
        Case(.v2_0, .certificate, [.leaf], .valid, at: "other.test", true, .pinnedCertificateMatch),
        Case(.v2_0, .certificate, [.selfSigned], .selfSigned, true, .pinnedCertificateMatch),
        Case(.v2_0, .certificate, A: true, [.intermediate], .forged, false, .pinnedCertificateMatch, "pinnedCertificateNotInPath"),
        Case(.v2_0, .publicKey, [.root], .valid, at: "other.test", true, .pinnedPublicKeyMatch),
        Case(.v2_0, .publicKey, [.leaf], .expired, true, .pinnedPublicKeyMatch),
    ]

    @Test("each release decides as its AFSecurityPolicy.m does", arguments: cases)
    func eachReleaseDecidesAsItsSourceDoes(_ testCase: Case) {
        let world = World.shared
        let policy = SecurityPolicy(
            version: testCase.version, SSLPinningMode: testCase.mode, allowInvalidCertificates: testCase.allowInvalid,
            validatesDomainName: testCase.validatesDomainName, validatesCertificateChain: testCase.validatesCertificateChain,
            pinnedCertificates: Set(testCase.pinned.map(world.certificate)))
        let evaluation = policy.evaluate(serverTrust: world.trust(testCase.chain, host: testCase.host), forDomain: testCase.host)

        #expect(evaluation.isTrusted == testCase.trusted, "\(evaluation.steps.map(\.description))")
        #expect(evaluation.decidingStep?.check == testCase.deciding, "\(evaluation.steps.map(\.description))")
        #expect(evaluation.decidingStep?.outcome == (testCase.trusted ? .passed : .failed))
        #expect(evaluation.rejection?.code == testCase.reason)
    }
}
