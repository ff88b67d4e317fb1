import ArgumentParser
import Foundation
import Simulation

extension MitmSim {
    struct AuditCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audit",
            abstract:
                "Run every attack of the matrix against the hosts your app's configuration files cover (exit 0 none gets through, 1 one does, 2 bad input).")

        @Option(name: .customLong("info-plist"), help: "The app's Info.plist (ATS keys, and TrustKit's TSKConfiguration when present).")
        var infoPlist: String?

        @Option(name: .customLong("android-nsc"), help: "The app's network_security_config.xml.")
        var androidNSC: String?

        @Option(name: .customLong("target-sdk"), help: "The Android app's targetSdkVersion (≤ 23 trusts user-installed CAs by default).")
        var targetSDK: Int = AuditConfiguration.defaultTargetSDK

        @Option(name: .customLong("okhttp-pins"), help: "Lines 'host-pattern sha256/BASE64', as given to OkHttp's CertificatePinner.")
        var okHttpPins: String?

        @Option(help: "A small YAML of the app's AFNetworking setup (Docs/audit.md): version, SSLPinningMode, flags, pinned certificate files.")
        var afnetworking: String?

        @Option(help: "A real server chain, PEM or DER, leaf first; repeat for several hosts (each applies to the hosts its leaf names).")
        var chain: [String] = []

        @Option(help: "Output format.")
        var format: AuditFormat = .text

        func run() throws {
            let audit: Audit
            do {
                let configuration = try AuditConfiguration.read(
                    infoPlist: infoPlist, androidNSC: androidNSC, targetSDK: targetSDK, okHttpPins: okHttpPins, afnetworking: afnetworking,
                    chains: chain)
                audit = try Audit(configuration)
            } catch let error as AuditError {
                throw BadInput(error.description)
            } catch let error as ScenarioError {
                throw BadInput(error.description)
            }
            print(format == .json ? audit.json : audit.text)
            if audit.attackGotThrough { throw ExitCode(1) }
        }
    }
}

enum AuditFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
