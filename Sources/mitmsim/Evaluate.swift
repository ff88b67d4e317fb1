import ArgumentParser
import Foundation
import PKI
import Policies

extension MitmSim {
    /// Judges a certificate chain with AFSecurityPolicy, printing every branch taken.
    struct Evaluate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Evaluate a server's chain with AFSecurityPolicy and show every step.",
            discussion: "Exit status: 0 trusted, 1 not trusted, 2 bad input.")

        @Option(help: "PEM bundle as the server presents it, leaf first.")
        var chain: String

        @Option(help: "The host the client connects to. Without it the domain is nil, as in AF's tests.")
        var domain: String?

        @Option(help: "A certificate file (PEM, one or many) of roots built into iOS. Repeatable.")
        var trust: [String] = []

        @Option(help: "A certificate file (PEM) the user installed with a profile and fully trusted. Repeatable.")
        var installed: [String] = []

        @Option(help: "A certificate file (PEM) installed with a profile whose full trust is off: it anchors nothing. Repeatable.")
        var installedWithoutFullTrust: [String] = []

        @Option(help: "Whose trust rules apply: ios16 (iOS 16 and later), ios13 (iOS 13–15) or ios12.")
        var platform: Platform = .iOS16

        @Option(help: "Whose AFSecurityPolicy decides: \(AFNetworkingVersion.names) (default: afnetworking-4, 4.0.x).", transform: AFNetworkingVersion.parse)
        var library: AFNetworkingVersion = .v4

        @Option(help: "What must match besides the chain.")
        var pinningMode: PinningModeArgument = .none

        @Option(help: "A pinned certificate file: DER, as an app bundles .cer files (a .cer or .der holding PEM is refused), or PEM. Repeatable.")
        var pin: [String] = []

        @Flag(help: "AF's allowInvalidCertificates = YES.")
        var allowInvalidCertificates = false

        @Flag(
            inversion: .prefixedNo,
            help: "AF's validatesDomainName, from 2.1 on (default YES from 2.5.3 on; earlier releases turn it on only with a pinning mode).")
        var validatesDomainName: Bool?

        @Option(
            help: ArgumentHelp(
                "AF 2.1–2.5.x's validatesCertificateChain (default true): in a pinning mode, every certificate of the chain (or its key) must be pinned.",
                valueName: "true|false"))
        var validatesCertificateChain: Bool?

        @Option(
            help: ArgumentHelp(
                "A Certificate Transparency log the device knows: its public key (PEM, as `pki export` writes ct-log-<id>.pub), "
                    + "optionally after its operator and '='. Repeatable. With one, iOS 12.1.1 and later require SCTs of a leaf at a --trust root.",
                valueName: "[operator=]file"))
        var ctLog: [String] = []

        @Option(help: "The evaluation time, e.g. 2026-06-01T12:00:00Z (default: now).", transform: Self.parseTime)
        var at: Date?

        @Option(help: "Output format.")
        var format: OutputFormat = .text

        func validate() throws {
            if validatesDomainName != nil, !library.hasValidatesDomainName {
                throw BadInput("--[no-]validates-domain-name: \(library.lacks("validatesDomainName"))")
            }
            if validatesCertificateChain != nil, !library.hasValidatesCertificateChain {
                throw BadInput("--validates-certificate-chain: \(library.lacks("validatesCertificateChain"))")
            }
        }

        func run() throws {
            let files = CertificateFiles()
            let presented = try files.load(chain, option: "--chain")
            let store = DeviceTrustStore(
                system: try trust.flatMap { try files.load($0, option: "--trust") },
                userInstalled: try installed.flatMap { try files.load($0, option: "--installed") },
                installedWithoutFullTrust: try installedWithoutFullTrust.flatMap { try files.load($0, option: "--installed-without-full-trust") },
                transparencyLogs: try transparencyLogs())
            let pinned = try pin.flatMap { try files.load($0, option: "--pin", pinned: true) }
            let policy = SecurityPolicy(
                version: library, SSLPinningMode: pinningMode.mode, allowInvalidCertificates: allowInvalidCertificates,
                validatesDomainName: validatesDomainName ?? library.defaultValidatesDomainName(for: pinningMode.mode),
                validatesCertificateChain: validatesCertificateChain ?? true, pinnedCertificates: Set(pinned))
            // As the challenge hands the trust over: CFNetwork's SSL policy for the host, which 2.0–2.2.0 keep.
            let serverTrust = ServerTrust(
                certificates: presented, deviceTrustStore: store, policy: .ssl(host: domain), verifyDate: at ?? Date(), platform: platform)
            let evaluation = policy.evaluate(serverTrust: serverTrust, forDomain: domain)

            switch format {
            case .json:
                print(evaluation.json())
            case .text:
                print(evaluation.text)
                if let line = transparencyLine(serverTrust) { print("\n" + line) }
                print("\npresented chain, leaf first:")
                print(presented.map(\.summary).joined(separator: "\n"))
            }
            if !evaluation.isTrusted { throw ExitCode(1) }
        }

        /// The log list `--ct-log` gives, or nil (no log list: no CT required) without one. Each log is named by its file's name.
        func transparencyLogs() throws -> CTLogList? {
            guard !ctLog.isEmpty else { return nil }
            let logs = try ctLog.map { argument in
                let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
                let path = parts.last ?? argument
                let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
                do {
                    let pem = try InputFile.read(path, limit: 64 << 10, kind: "a CT log's public key")
                    return try KnownLog(name: name, operatorName: parts.count == 2 ? parts[0] : name, publicKeyPEM: pem, source: path)
                } catch {
                    throw BadInput(option: "--ct-log", error)
                }
            }
            return try CTLogList(logs)
        }

        /// Apple's CT requirement for the system's SSL-policy evaluation of the chain, when the device holds a log list.
        func transparencyLine(_ trust: ServerTrust) -> String? {
            guard trust.deviceTrustStore.transparencyLogs != nil else { return nil }
            var system = trust
            system.policy = .ssl(host: domain ?? "")
            let result = system.evaluate()
            guard let verdict = result.transparency else {
                let reason: String =
                    if !platform.requiresCertificateTransparency { "\(platform.name) requires none" } else if !result.isValid {
                        "the chain fails another check first"
                    } else if result.anchor?.source != .system { "the path does not end at a root built into iOS (--trust)" } else {
                        "the leaf was issued before 16 October 2018"
                    }
                return "certificate transparency: not required: \(reason)"
            }
            return "certificate transparency: iOS 12.1.1 and later require \(verdict.requirement); \(verdict.findings): "
                + (verdict.isQualified ? "CT-qualified" : "not CT-qualified")
        }

        static func parseTime(_ text: String) throws -> Date {
            guard let date = ISO8601DateFormatter().date(from: text) else {
                throw ValidationError("expected an ISO-8601 time such as 2026-06-01T12:00:00Z")
            }
            return date
        }
    }
}

/// The certificate files of one evaluation. Each is held to PKI's limits for one file; together they
/// may hold at most `byteLimit` of certificates, so repeating `--trust` or `--pin` cannot multiply the cost.
private final class CertificateFiles {
    /// Of DER: more than ten times the Mozilla root store that Linux systems ship (about 150 KB of DER).
    static let byteLimit = 2 << 20
    private var bytes = 0

    /// `pinned`: a file the app bundles, which must be DER when it is named `.cer` or `.der`.
    func load(_ path: String, option: String, pinned: Bool = false) throws -> [Certificate] {
        let certificates: [Certificate]
        do {
            certificates = try pinned ? Certificate.loadPinned(from: path) : Certificate.loadAll(from: path)
        } catch {
            throw BadInput(option: option, error)
        }
        bytes += certificates.reduce(0) { $0 + $1.der.count }
        guard bytes <= Self.byteLimit else {
            let limit = InputFile.size(Self.byteLimit)
            throw BadInput("\(option) \(path): the certificate files of one evaluate hold more than \(limit) of certificates together, the most it reads")
        }
        return certificates
    }
}

enum PinningModeArgument: String, ExpressibleByArgument, CaseIterable {
    case none
    case publicKey = "public-key"
    case certificate

    var mode: SSLPinningMode {
        switch self {
        case .none: .none
        case .publicKey: .publicKey
        case .certificate: .certificate
        }
    }
}

// Only the iOS platforms: `evaluate` judges as an iPhone does.
extension Platform: ExpressibleByArgument {
    public init?(argument: String) {
        guard let platform = Platform.iOS.first(where: { $0.rawValue == argument }) else { return nil }
        self = platform
    }

    public static var allValueStrings: [String] { Platform.iOS.map(\.rawValue) }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}
