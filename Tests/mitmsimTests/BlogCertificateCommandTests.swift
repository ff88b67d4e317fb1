import Foundation
import Simulation
import TestSupport
import Testing

/// Lesson 52's two openssl commands, taken from its text, run by the real `openssl` and judged by the real
/// `mitmsim evaluate` as the lesson's app pins them: certificate mode, allowInvalidCertificates YES,
/// validatesDomainName YES, today's date.
struct BlogCertificateCommandTests {
    static let lessonID = "52-blog-certificate-without-san"

    /// The lesson's lines that are an openssl command in backticks: the blog's in the story, the fix in the reveal.
    static func command(in text: String) throws -> String {
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("`openssl req ") && $0.hasSuffix("`") })
        return String(line.dropFirst().dropLast())
    }

    static var blogCommand: String { get throws { try command(in: ScenarioCatalog.builtIn.load(lessonID).lesson.story) } }
    static var fixedCommand: String { get throws { try command(in: ScenarioCatalog.builtIn.load(lessonID).lesson.reveal) } }

    /// Runs `command` in a new directory, then evaluates the `bank.crt` it wrote, pinned, for `bank.test`.
    static func evaluate(_ command: String) throws -> CommandLine.Result {
        let directory = NSTemporaryDirectory() + "mitmsim-blog-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let made = try Subprocess.paste("cd '\(directory)' && " + command)
        #expect(made.status == 0, "\(made.output)")
        let certificate = directory + "/bank.crt"
        return try CommandLine.run(
            [
                "evaluate", "--chain", certificate, "--domain", "bank.test", "--pinning-mode", "certificate", "--pin", certificate,
                "--allow-invalid-certificates", "--format", "json",
            ])
    }

    static func failedStep(_ result: CommandLine.Result) -> [String: String]? {
        (result.json["steps"] as? [[String: String]])?.first { $0["outcome"] == "failed" }
    }

    @Test func theBlogCommandsCertificateFailsAtPinnedAnchorsForAllThreeReasonsTheLessonGives() throws {
        let result = try Self.evaluate(try Self.blogCommand)
        #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
        #expect(result.json["reason"] as? String == "hostnameMismatch", "the first fault is the one reported")
        let step = try #require(Self.failedStep(result))
        #expect(step["check"] == "pinnedAnchors")
        let detail = step["detail"] ?? ""
        #expect(detail.contains("has no names in its SAN"), "\(detail)")
        #expect(detail.contains("is valid for 3650 days"), "\(detail)")
        #expect(detail.contains("has no extended key usage naming serverAuth"), "\(detail)")
    }

    @Test func theFixedCommandsCertificateIsTrustedByTheSamePolicy() throws {
        let result = try Self.evaluate(try Self.fixedCommand)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.json["trusted"] as? Bool == true)
        let steps = result.json["steps"] as? [[String: String]] ?? []
        #expect(steps.last?["check"] == "pinnedCertificateMatch")
        #expect(Self.failedStep(result) == nil)
    }

    /// Each of the three faults refuses the certificate alone: the fixed command with one fix undone.
    @Test(
        arguments: [
            (" -addext subjectAltName=DNS:bank.test", "", "hostnameMismatch"),
            (" -addext extendedKeyUsage=serverAuth", "", "missingServerAuthEKU"),
            ("-days 365 ", "-days 3650 ", "validityPeriodTooLong"),
        ])
    func eachFaultAloneRefusesTheCertificate(undoing fix: String, with replacement: String, reason: String) throws {
        let fixed = try Self.fixedCommand
        #expect(fixed.contains(fix), "the lesson's fixed command has '\(fix)'")
        let result = try Self.evaluate(fixed.replacingOccurrences(of: fix, with: replacement))
        #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
        #expect(result.json["reason"] as? String == reason)
        #expect(Self.failedStep(result)?["check"] == "pinnedAnchors")
    }
}
