import Foundation
import LoopbackTLS
import PKI
import Policies
import Simulation

#if FUZZING
    import CLibFuzzer
#endif

/// The inputs mitmsim reads from outside, for libFuzzer: `MITMSIM_FUZZ` names the kind (a scenario by
/// default). Every input must load or be refused in one line that names its source; anything else (a
/// crash, a second line, a message naming nothing, or libFuzzer's own time and memory limits) is a finding.
enum FuzzInput: String {
    case scenario, certificate, key, p12, http, infoplist, nsc, okhttp, afnetworking

    static let current = FuzzInput(rawValue: ProcessInfo.processInfo.environment["MITMSIM_FUZZ"] ?? "scenario") ?? .scenario

    var source: String {
        switch self {
        case .scenario: "fuzz.yaml"
        case .certificate: "fuzz.pem"
        case .key: "fuzz.key"
        case .p12: "fuzz.p12"
        case .http: "fuzz.http"
        case .infoplist: "Info.plist"
        case .nsc: "network_security_config.xml"
        case .okhttp: "pins.txt"
        // In a directory of its own, so the pinned certificate files it names are looked for there.
        case .afnetworking: NSTemporaryDirectory() + "mitmsim-fuzz/afnetworking.yaml"
        }
    }

    func read(_ bytes: [UInt8]) {
        do {
            switch self {
            case .scenario: _ = try ScenarioLoader.decode(Data(bytes), file: source, id: "fuzz")
            case .certificate: _ = try Certificate.parseAll(bytes, source: source).map(\.summary)
            case .key: _ = try PrivateKey(pem: bytes, source: source)
            case .p12: _ = try Identity(pkcs12: bytes, password: "secret", source: source)
            // HTTP comes from the network, not a file: nothing is refused in words, and every input must come back.
            case .http: HTTPFuzzing.read(bytes)
            // The audit's readers, as `mitmsim audit` calls them.
            case .infoplist: _ = try InfoPlist.audited(bytes, file: source)
            case .nsc:
                _ = try AuditConfiguration.parsed(bytes, file: source) { bytes throws(ConfigurationError) in
                    try NetworkSecurityConfig(xml: bytes, depthLimit: AuditLimits.xmlDepth)
                }
            case .okhttp:
                _ = try AuditConfiguration.parsed(bytes, file: source) { bytes throws(ConfigurationError) in try CertificatePinner.pins(inPinFile: bytes) }
            case .afnetworking: _ = try AFNetworkingAuditFile.read(bytes, file: source)
            }
        } catch let error as ScenarioError {
            check(error.description)
        } catch let error as PKIError {
            check(error.description)
        } catch let error as InfoPlist.Refusal {
            check(error.description)
        } catch {
            fatalError("\(source): threw \(type(of: error)), which no front end words: \(error)")
        }
    }

    private func check(_ message: String) {
        // Compared as scalars: a key that starts with a combining mark joins the ": " before it into one Character.
        guard message.unicodeScalars.starts(with: (source + ": ").unicodeScalars), !message.contains(where: \.isNewline) else {
            fatalError("not one line naming \(source): \(message)")
        }
    }
}

@main
enum Fuzz {
    static func main() {
        #if FUZZING
            var argc = CommandLine.argc
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            exit(
                LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                    FuzzInput.current.read(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
                    return 0
                })
        #else
            // Without libFuzzer: read each file named once, so a saved finding replays in a debugger.
            for path in CommandLine.arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else { fatalError("\(path): cannot be read") }
                FuzzInput.current.read([UInt8](data))
                print("\(path): read without a finding")
            }
        #endif
    }
}
