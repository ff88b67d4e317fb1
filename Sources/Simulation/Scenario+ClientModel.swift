import Foundation
import PKI
import Policies

extension Scenario {
    /// The client that judges this scenario's chain, as `client.library` names it, with the lesson's settings:
    /// for an AFNetworking release the whole iOS client (ATS, the challenge handler, `AFSecurityPolicy`), for a
    /// peer library the lesson's pins (`client.policy.pinningMode` and `pinnedCertificates`) in its own terms.
    ///
    /// The one place a model name becomes a model: every run, `compare` and the console come through here.
    public func clientModel(in world: World) throws -> any ClientModel {
        switch client.library {
        case .afnetworking(let release):
            let spec = client.policy
            let policy = SecurityPolicy(
                version: release, SSLPinningMode: spec.pinningMode, allowInvalidCertificates: spec.allowInvalidCertificates,
                validatesDomainName: spec.validatesDomainName, validatesCertificateChain: spec.validatesCertificateChain,
                pinnedCertificates: Set(try pinnedCertificates(in: world)))
            return IOSClient(ats: client.ats, challengeHandler: client.challengeHandler, policy: policy)
        case .alamofire5:
            let pins = try pinnedCertificates(in: world)
            let evaluator: ServerTrustEvaluator =
                switch client.policy.pinningMode {
                case .none: .defaultTrust()
                case .certificate: .pinnedCertificates(certificates: pins)
                case .publicKey: .publicKeys(keys: pins)
                }
            return Alamofire5Client(serverTrustManager: ServerTrustManager(evaluators: [server.host: evaluator]))
        case .alamofire4:
            let pins = try pinnedCertificates(in: world)
            let policy: ServerTrustPolicy =
                switch client.policy.pinningMode {
                case .none: .performDefaultEvaluation(validateHost: true)
                case .certificate: .pinCertificates(certificates: pins, validateCertificateChain: true, validateHost: true)
                case .publicKey: .pinPublicKeys(publicKeys: pins, validateCertificateChain: true, validateHost: true)
                }
            return Alamofire4Client(serverTrustPolicyManager: ServerTrustPolicyManager(policies: [server.host: policy]))
        case .trustkit:
            return TrustKitClient(configuration: try trustKitConfiguration(in: world))
        case .okhttp, .okhttp3_1_1:
            let pins = try publicKeyPins(in: world).map { CertificatePinner.Pin(pattern: server.host, certificate: $0) }
            return OkHttpClient(
                version: client.library == .okhttp ? .current : .beforeChainCleaning, certificatePinner: CertificatePinner(pins: pins),
                trustManager: .platformDefault(targetSdkVersion: client.peerOptions.androidTargetSdkVersion))
        case .androidNSC:
            let pins = try publicKeyPins(in: world)
            let expiration = client.peerOptions.androidPinSetExpiration.flatMap(CalendarDay.date)
            let domains =
                pins.isEmpty
                ? []
                : [
                    NetworkSecurityConfig.DomainConfig(
                        domains: [.init(server.host)], pinSet: .init(pins: pins.map(NetworkSecurityConfig.Pin.init(certificate:)), expiration: expiration))
                ]
            return AndroidNetworkSecurityClient(
                config: NetworkSecurityConfig(domainConfigs: domains), targetSdkVersion: client.peerOptions.androidTargetSdkVersion)
        case .curl:
            let pins = try publicKeyPins(in: world)
            return CurlClient(options: CurlOptions(pinnedPublicKey: pins.isEmpty ? nil : .hashes(pins.map(\.publicKeyPin).joined(separator: ";"))))
        }
    }

    /// The lesson's pins as the key-pinning libraries take them: the keys of the pinned certificates, or none
    /// in pinning mode none (these libraries pin keys whichever mode an AFNetworking lesson chose).
    func publicKeyPins(in world: World) throws -> [Certificate] {
        client.policy.pinningMode == .none ? [] : try pinnedCertificates(in: world)
    }

    /// TrustKit's `TSKPinnedDomains` for the server's host: the pinned certificates' SPKI hashes, plus
    /// `backupPin` when only one is pinned and pinning is enforced (TrustKit refuses a single enforced pin);
    /// nil when nothing is pinned (TrustKit then pins no domain).
    func trustKitConfiguration(in world: World) throws -> TrustKitConfiguration? {
        // Two pinned certificates with one key are one pin to TrustKit.
        var hashes: [String] = []
        for hash in try publicKeyPins(in: world).map(\.publicKeySHA256Base64) where !hashes.contains(hash) { hashes.append(hash) }
        guard !hashes.isEmpty else { return nil }
        let options = client.peerOptions
        let policy = TrustKitDomainPolicy(
            publicKeyHashes: hashes.count == 1 && options.trustKitEnforcePinning ? hashes + [Self.backupPin] : hashes,
            enforcePinning: options.trustKitEnforcePinning, expirationDate: options.trustKitExpirationDate)
        do {
            return try TrustKitConfiguration(pinnedDomains: [server.host: policy])
        } catch {
            throw ScenarioError(file: file, path: "client.trustKit", reason: error.description)
        }
    }

    /// A backup pin that matches no key (the SHA-256 of the words below): what the lesson's one pin needs beside
    /// it for TrustKit to accept the configuration, as an app would list its next key.
    static let backupPin = Data(OpenSSL.sha256(Array("mitmsim backup pin: a key the bank has not used yet".utf8))).base64EncodedString()

    /// The lesson's pinned certificates, taken from `world` in the order `client.policy.pinnedCertificates` names them.
    func pinnedCertificates(in world: World) throws -> [Certificate] {
        try world.certificates(client.policy.pinnedCertificates, file: file, path: "client.policy.pinnedCertificates")
    }
}
