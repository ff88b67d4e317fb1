import Foundation
import PKI
import TestSupport

/// A fresh directory under the system temp dir, removed when the test's scope ends.
final class TemporaryDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "mitmsim-pki-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}

/// Runs the `openssl` command-line tool: an oracle that shares no code with ours above libcrypto.
func openssl(_ arguments: [String], input: [UInt8]? = nil) throws -> (status: Int32, output: String) {
    try Subprocess.run("/usr/bin/env", ["openssl"] + arguments, input: input)
}

/// Runs a shell pipeline (of openssl commands) and returns its trimmed standard output; fails on a non-zero exit.
func shell(_ script: String) throws -> String {
    let result = try Subprocess.run("/bin/bash", ["-o", "pipefail", "-c", script])
    guard result.status == 0 else { throw ShellFailure(script: script, output: result.output) }
    return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
}

struct ShellFailure: Error { let script: String, output: String }

func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

let clock = date("2026-06-01T00:00:00Z")
let factory = CertificateFactory(now: clock)

/// DSA parameters from the real `openssl` (2048 bits take seconds to generate, so once per test run).
private let dsaParameters = Result { () throws -> [UInt8] in
    let directory = TemporaryDirectory()
    _ = try shell("openssl genpkey -genparam -algorithm DSA -pkeyopt dsa_paramgen_bits:2048 -out '\(directory.file("dsa.pem"))' 2>&1")
    return Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("dsa.pem"))))
}

/// A fresh DSA-2048 key, made by the real `openssl`.
func dsaKey() throws -> PrivateKey {
    let directory = TemporaryDirectory()
    try Data(try dsaParameters.get()).write(to: URL(fileURLWithPath: directory.file("parameters.pem")))
    _ = try shell("openssl genpkey -paramfile '\(directory.file("parameters.pem"))' -out '\(directory.file("key.pem"))'")
    return try PrivateKey.load(from: directory.file("key.pem"))
}

/// An Ed25519 key, made by the real openssl.
func ed25519Key() throws -> PrivateKey {
    let directory = TemporaryDirectory()
    _ = try shell("openssl genpkey -algorithm ed25519 -out '\(directory.file("key.pem"))'")
    return try PrivateKey.load(from: directory.file("key.pem"))
}
