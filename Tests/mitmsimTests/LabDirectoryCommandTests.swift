import Foundation
import Testing

/// `mitmsim lab` on a directory another running lab holds: one line, exit 2, and the first lab goes on.
struct LabDirectoryCommandTests {
    /// Starts `mitmsim lab --dir directory` writing to `output`, and waits until it handles ^C.
    func startLab(_ directory: String, output: String) throws -> (process: Process, printed: String) {
        #expect(FileManager.default.createFile(atPath: output, contents: nil))
        let process = Process()
        process.executableURL = CommandLine.binary
        process.arguments = ["lab", "--dir", directory]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = process.standardOutput
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var printed = ""
        // Only once it says so does the lab handle ^C (an earlier SIGINT would be lost).
        for _ in 0..<250 where !printed.contains("^C stops the lab.") {
            usleep(20_000)
            printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        }
        return (process, printed)
    }

    @Test func aSecondLabOnTheSameDirectoryExitsWithStatus2AndOneLineAndARestartReusesThePKI() throws {
        let directory = NSTemporaryDirectory() + "mitmsim-lab-busy-\(UUID().uuidString)"
        let output = NSTemporaryDirectory() + "mitmsim-lab-busy-\(UUID().uuidString).txt"
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: output)
        }
        let first = try startLab(directory, output: output)
        defer { if first.process.isRunning { first.process.terminate() } }
        #expect(first.printed.contains("PKI: made a new PKI in \(directory)."))

        let second = try CommandLine.run(["lab", "--dir", directory])
        #expect(second.status == 2)
        #expect(second.standardError.hasPrefix("mitmsim: \(directory): another mitmsim lab (pid \(first.process.processIdentifier)) is running"))
        #expect(second.standardError.split(separator: "\n").count == 1, "\(second.standardError)")
        #expect(second.standardOutput.isEmpty)

        first.process.interrupt()
        first.process.waitUntilExit()
        // Once the first lab has stopped, the directory is free, and its PKI is reused.
        let third = try startLab(directory, output: output)
        defer { if third.process.isRunning { third.process.terminate() } }
        #expect(third.printed.contains("PKI: reused the PKI in \(directory): the same CA and pins as before."))
        third.process.interrupt()
        third.process.waitUntilExit()
    }
}
