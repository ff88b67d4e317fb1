import Foundation
import Testing

/// `mitmsim lab` on a directory another running lab holds: one line, exit 2, and the first lab goes on.
struct LabDirectoryCommandTests {
    @Test func aSecondLabOnTheSameDirectoryExitsWithStatus2AndOneLine() throws {
        let directory = NSTemporaryDirectory() + "mitmsim-lab-busy-\(UUID().uuidString)"
        let output = NSTemporaryDirectory() + "mitmsim-lab-busy-\(UUID().uuidString).txt"
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: output)
        }
        #expect(FileManager.default.createFile(atPath: output, contents: nil))
        let first = Process()
        first.executableURL = CommandLine.binary
        first.arguments = ["lab", "--dir", directory]
        first.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        first.standardError = first.standardOutput
        first.standardInput = FileHandle.nullDevice
        try first.run()
        defer { if first.isRunning { first.terminate() } }
        var printed = ""
        for _ in 0..<250 where !printed.contains("^C stops the lab.") {
            usleep(20_000)
            printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        }
        #expect(printed.contains("PKI: made a new PKI in \(directory)."))

        let second = try CommandLine.run(["lab", "--dir", directory])
        #expect(second.status == 2)
        #expect(second.standardError.hasPrefix("mitmsim: \(directory): another mitmsim lab (pid \(first.processIdentifier)) is running"))
        #expect(second.standardError.split(separator: "\n").count == 1, "\(second.standardError)")
        #expect(second.standardOutput.isEmpty)

        first.interrupt()
        first.waitUntilExit()
        // Once the first lab has stopped, the directory is free, and its PKI is reused.
        let third = Process()
        third.executableURL = CommandLine.binary
        third.arguments = ["lab", "--dir", directory]
        let pipe = Pipe()
        third.standardOutput = pipe
        third.standardError = pipe
        third.standardInput = FileHandle.nullDevice
        try third.run()
        defer { if third.isRunning { third.terminate() } }
        var restarted = ""
        for _ in 0..<250 where !restarted.contains("PKI:") {
            restarted += String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
        }
        #expect(restarted.contains("PKI: reused the PKI in \(directory): the same CA and pins as before."))
        third.interrupt()
        third.waitUntilExit()
    }
}
