import Foundation
import TestSupport
import Testing

/// `Docs/own-certificates.md`, replayed: every ```sh block runs, in order, in one empty directory, with the real
/// `openssl` and the `mitmsim` this test built first on `PATH`; the ```text block that follows one holds lines its
/// output must contain. The page cannot show a command that does not work or an output mitmsim does not print.
struct OwnCertificatesDocTests {
    static let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Docs/own-certificates.md")

    /// Each shell block of the page with the output lines shown after it (none when no text block follows).
    static func blocks() throws -> [(commands: String, shown: [String])] {
        let text = try String(contentsOf: page, encoding: .utf8)
        var blocks: [(commands: String, shown: [String])] = []
        var rest = Substring(text)
        while let open = rest.range(of: "\n```") {
            let afterFence = rest[open.upperBound...]
            let language = afterFence.prefix { $0 != "\n" }
            guard let close = afterFence.range(of: "\n```") else { break }
            let body = String(afterFence[afterFence.index(afterFence.startIndex, offsetBy: language.count + 1)..<close.lowerBound])
            switch language {
            case "sh": blocks.append((body, []))
            case "text" where !blocks.isEmpty && blocks[blocks.count - 1].shown.isEmpty:
                blocks[blocks.count - 1].shown = body.split(separator: "\n").map(String.init)
            default: break
            }
            rest = afterFence[close.upperBound...].drop { $0 != "\n" }
        }
        return blocks
    }

    /// The page's recipe and lesson, with the server's key swapped for the CA's: `run` refuses the lesson in one line.
    @Test func aKeyThatIsNotTheCertificatesStopsRunWithOneLineAndExitStatus2() throws {
        let blocks = try Self.blocks()
        let directory = NSTemporaryDirectory() + "mitmsim-own-certificates-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let made = try Subprocess.paste("set -e; cd '\(directory)'\n" + blocks.prefix(2).map(\.commands).joined(separator: "\n"))
        #expect(made.status == 0, "\(made.output)")
        let lesson = directory + "/own-ca.yaml"
        let text = try String(contentsOfFile: lesson, encoding: .utf8)
        #expect(text.contains("keyFile: server.key"))
        try Data(text.replacingOccurrences(of: "keyFile: server.key", with: "keyFile: ca.key").utf8).write(to: URL(fileURLWithPath: lesson))
        let result = try CommandLine.run(["run", lesson])
        #expect(result.status == 2)
        #expect(
            result.standardError
                == "mitmsim: \(lesson): world.leaves[0].keyFile: 'ca.key' is not the key of 'server.pem' (the certificate carries another public key)\n")
        #expect(result.standardOutput.isEmpty)
    }

    @Test func everyCommandOnThePageRunsAndPrintsWhatThePageShows() throws {
        let blocks = try Self.blocks()
        #expect(blocks.count >= 5, "the recipe, the lesson, the attack, the export and the renamed .cer")
        #expect(blocks.contains { $0.commands.contains("-outform der -out ca.cer") }, "the CA is converted to DER for the bundle")
        let directory = NSTemporaryDirectory() + "mitmsim-own-certificates-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let binaries = CommandLine.binary.deletingLastPathComponent().path
        for block in blocks {
            let result = try Subprocess.paste("set -e; cd '\(directory)'; export PATH='\(binaries)':\"$PATH\"\n" + block.commands)
            #expect(result.status == 0, "\(block.commands)\n\(result.output)")
            for line in block.shown { #expect(result.output.contains(line), "\(block.commands)\nprinted:\n\(result.output)\nmissing: \(line)") }
        }
    }
}
