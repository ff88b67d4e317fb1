import Foundation
import LoopbackTLS
import PKI

/// Another intercepting proxy (sslsplit, mitmdump) started for a side-by-side benchmark, when installed.
///
/// Each forges with the benchmark's attacker CA and forwards to the benchmark's origin; only loopback
/// addresses are used.
final class ExternalProxy {
    let name: String
    let port: UInt16
    private let process: Process

    /// Its process, whose CPU time the benchmark reads.
    var processIdentifier: Int32 { process.processIdentifier }
    private let directory: URL

    /// Starts `name` if it is on PATH; nil when it is not installed.
    static func start(_ name: String, authority: Identity, originPort: UInt16) throws -> ExternalProxy? {
        guard
            let executable = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
                .map({ URL(fileURLWithPath: String($0)).appendingPathComponent(name) })
                .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
        else { return nil }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mitmsim-bench-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = directory.appendingPathComponent("ca.key").path
        let certificate = directory.appendingPathComponent("ca.pem").path
        try authority.privateKey.write(to: key)
        try authority.certificate.write(to: certificate)
        let port = try Loopback.freePort()
        let arguments: [String]
        switch name {
        case "sslsplit":
            arguments = ["-k", key, "-c", certificate, "ssl", "127.0.0.1", "\(port)", "127.0.0.1", "\(originPort)"]
        default:  // mitmdump: a reverse proxy that forges for the client's SNI with the CA in its confdir
            let bundle = try Data(contentsOf: URL(fileURLWithPath: key)) + Data(contentsOf: URL(fileURLWithPath: certificate))
            try bundle.write(to: directory.appendingPathComponent("mitmproxy-ca.pem"))
            arguments = [
                "--mode", "reverse:https://127.0.0.1:\(originPort)/", "--listen-host", "127.0.0.1", "--listen-port", "\(port)",
                "--set", "confdir=\(directory.path)", "--ssl-insecure", "-q",
            ]
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return ExternalProxy(name: name, port: port, process: process, directory: directory)
    }

    private init(name: String, port: UInt16, process: Process, directory: URL) {
        self.name = name
        self.port = port
        self.process = process
        self.directory = directory
    }

    /// Asks the tool and its children (sslsplit works in one) to end, and kills them after two seconds:
    /// started by a process that blocks SIGTERM (a test runner's thread), they inherit the blocked signal and never see it.
    func stop() {
        if process.isRunning {
            let tree = ProcessTable.tree(of: process.processIdentifier)
            for member in tree { kill(member, SIGTERM) }
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { for member in tree { kill(member, SIGKILL) } }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
