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

        @Option(help: "A certificate file (PEM, one or many) for the device trust store. Repeatable.")
        var trust: [String] = []

        @Option(help: "What must match besides the chain.")
        var pinningMode: PinningModeArgument = .none

        @Option(help: "A pinned certificate file (PEM or DER, as an app bundles .cer files). Repeatable.")
        var pin: [String] = []

        @Flag(help: "AF's allowInvalidCertificates = YES.")
        var allowInvalidCertificates = false

        @Flag(inversion: .prefixedNo, help: "AF's validatesDomainName (default YES).")
        var validatesDomainName = true

        @Option(help: "The evaluation time, e.g. 2026-06-01T12:00:00Z (default: now).", transform: Self.parseTime)
        var at: Date?

        @Option(help: "Output format.")
        var format: OutputFormat = .text

        func run() throws {
            let presented = try load(chain, option: "--chain")
            let anchors = try trust.flatMap { try load($0, option: "--trust") }
            let pinned = try pin.flatMap { try load($0, option: "--pin") }
            let policy = SecurityPolicy(
                SSLPinningMode: pinningMode.mode, allowInvalidCertificates: allowInvalidCertificates,
                validatesDomainName: validatesDomainName, pinnedCertificates: Set(pinned))
            let serverTrust = ServerTrust(certificates: presented, anchors: anchors, verifyDate: at ?? Date())
            let evaluation = policy.evaluate(serverTrust: serverTrust, forDomain: domain)

            switch format {
            case .json:
                print(evaluation.json())
            case .text:
                print(evaluation.text)
                print("\npresented chain, leaf first:")
                print(presented.map(\.summary).joined(separator: "\n"))
            }
            if !evaluation.isTrusted { throw ExitCode(1) }
        }

        static func parseTime(_ text: String) throws -> Date {
            guard let date = ISO8601DateFormatter().date(from: text) else {
                throw ValidationError("expected an ISO-8601 time such as 2026-06-01T12:00:00Z")
            }
            return date
        }

        private func load(_ path: String, option: String) throws -> [Certificate] {
            do {
                return try Certificate.loadAll(from: path)
            } catch {
                throw BadInput(option: option, error)
            }
        }
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

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}
