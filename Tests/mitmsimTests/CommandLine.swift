import Foundation
import PKI
import TestSupport

/// Runs the real `mitmsim` binary that `swift test` built next to this test bundle.
struct CommandLine {
    struct Result {
        let status: Int32
        let standardOutput: String
        let standardError: String

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(standardOutput.utf8))) as? [String: Any] ?? [:] }
    }

    static let binary: URL = {
        let testExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testExecutable.deletingLastPathComponent()
        // On Linux the test product is a plain executable in the build directory; be tolerant of a bundle layout too.
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("mitmsim").path), directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("mitmsim")
    }()

    /// Runs the built binary with `arguments` once per test process, for commands that print the same whatever runs
    /// them when (the whole catalog as JSON, a matrix): several tests read each such run.
    static func runOnce(_ arguments: [String]) throws -> Result { try runs[arguments].get() }

    private static let runs = Memo { (arguments: [String]) in Swift.Result { try run(arguments) } }

    /// Runs `binary` (the built one unless given) in `currentDirectory`, with `environment`'s entries set
    /// (or removed, for nil values) over this process's environment.
    static func run(
        _ arguments: [String], binary: URL = binary, currentDirectory: URL? = nil, environment: [String: String?] = [:]
    ) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = currentDirectory
        if !environment.isEmpty {
            var merged = ProcessInfo.processInfo.environment
            for (name, value) in environment { merged[name] = value }
            process.environment = merged
        }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}

/// A bank, its CA and an attacker, written to files as a user would hand them to `mitmsim evaluate`.
final class WorldOnDisk {
    let directory: String
    let clock = ISO8601DateFormatter().date(from: "2026-06-01T00:00:00Z")!
    let leaf: Identity, forged: Identity

    init() throws {
        directory = NSTemporaryDirectory() + "mitmsim-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let factory = CertificateFactory(now: clock)
        let start = clock.addingTimeInterval(-30 * 86_400)
        let end = clock.addingTimeInterval(365 * 86_400)
        let root = try factory.makeIdentity(.authority(label: "Bank Root", commonName: "Bank Root", notBefore: start, notAfter: end))
        let intermediate = try factory.makeIdentity(
            .authority(label: "Bank Intermediate", commonName: "Bank Intermediate", pathLength: 0, notBefore: start, notAfter: end), signedBy: root)
        leaf = try factory.makeIdentity(.serverLeaf(label: "bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: end), signedBy: intermediate)
        let attacker = try factory.makeIdentity(.authority(label: "Attacker CA", commonName: "Attacker CA", notBefore: start, notAfter: end))
        forged = try factory.forge(impersonating: leaf.certificate, signedBy: attacker)

        try root.certificate.write(to: path("bank-root.pem"))
        try attacker.certificate.write(to: path("attacker-ca.pem"))
        try leaf.certificate.write(to: path("bank-leaf.cer"))
        try leaf.privateKey.write(to: path("bank-leaf.key"))
        try Certificate.writeBundle([leaf.certificate, intermediate.certificate], to: path("chain.pem"))
        try Certificate.writeBundle([forged.certificate, attacker.certificate], to: path("forged.pem"))
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func path(_ name: String) -> String { directory + "/" + name }

    func write(_ bytes: [UInt8], to name: String) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    var at: [String] { ["--at", "2026-06-01T00:00:00Z"] }
}
