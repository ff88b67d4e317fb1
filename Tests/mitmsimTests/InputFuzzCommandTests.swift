import Foundation
import TestSupport
import Testing

/// A sample of the fuzz tests' inputs through the real binary (the suites in SimulationTests and PKITests
/// run thousands in-process): every exit is 0, 1 or 2, and a refusal is one line naming the file.
struct InputFuzzCommandTests {
    static let lesson = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios/01-no-attacker.yaml")
    let world = try! WorldOnDisk()

    func expectWellBehaved(_ result: CommandLine.Result, file: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect([0, 1, 2].contains(result.status), "\(file): exit \(result.status)", sourceLocation: sourceLocation)
        guard result.status == 2 else { return }
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardError.hasPrefix("mitmsim: ") && result.standardError.contains(file), "\(result.standardError)", sourceLocation: sourceLocation)
    }

    @Test func mutatedLessonsThroughRunExitZeroOneOrTwoAndARefusalIsOneLine() throws {
        let lesson = try String(contentsOf: Self.lesson, encoding: .utf8)
        var mutator = InputMutator(seed: 12)
        var statuses: [Int32] = []
        // Most mutations are refused; forty reach a few that load and run.
        for index in 0..<40 {
            let file = try world.write(mutator.scenario(from: lesson), to: "fuzzed-\(index).yaml")
            let result = try CommandLine.run(["run", file])
            expectWellBehaved(result, file: file)
            statuses.append(result.status)
        }
        #expect(statuses.contains(2) && statuses.contains { $0 != 2 }, "\(statuses)")
    }

    @Test func mutatedCertificatesThroughEvaluateExitZeroOneOrTwoAndARefusalIsOneLine() throws {
        let chain = try [UInt8](Data(contentsOf: URL(fileURLWithPath: world.path("chain.pem"))))
        var mutator = InputMutator(seed: 12)
        var statuses: [Int32] = []
        for index in 0..<24 {
            let file = try world.write(mutator.binary(from: index.isMultiple(of: 2) ? chain : world.leaf.certificate.der), to: "fuzzed-\(index).pem")
            let result = try CommandLine.run(["evaluate", "--chain", file, "--trust", world.path("bank-root.pem")] + world.at)
            expectWellBehaved(result, file: file)
            statuses.append(result.status)
        }
        #expect(statuses.contains(2) && statuses.contains { $0 != 2 }, "\(statuses)")
    }
}

/// A lesson whose request method carries a line break once reached the bank's parser and trapped (exit 132); it
/// is refused when it loads.
struct RequestLineCommandTests {
    @Test(arguments: ["compare", "run"])
    func aMethodWithALineBreakIsRefusedInOneLineWithExitTwo(_ command: String) throws {
        let world = try WorldOnDisk()
        let lesson = try String(contentsOf: InputFuzzCommandTests.lesson, encoding: .utf8)
        let method = #"  method: "POST /login HTTP/1.1\r\nContent-Length: -1\r\n\r\nGET""#
        let file = try world.write(Array((lesson + "\nrequest:\n" + method + "\n").utf8), to: "crlf.yaml")
        let result = try CommandLine.run([command, file])
        #expect(result.status == 2, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("mitmsim: \(file): request.method: "), "\(result.standardError)")
    }
}
