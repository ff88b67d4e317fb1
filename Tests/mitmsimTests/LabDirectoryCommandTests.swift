import Foundation
import Testing

/// `mitmsim lab` on a directory another running lab holds: one line, exit 2, and the first lab goes on; and the
/// modes of the files it writes there.
struct LabDirectoryCommandTests {
    /// Starts `mitmsim lab --dir directory` writing to `output` (under `umask` when given), and waits until it handles ^C.
    func startLab(_ directory: String, output: String, umask: String? = nil) throws -> (process: Process, printed: String) {
        #expect(FileManager.default.createFile(atPath: output, contents: nil))
        let process = Process()
        if let umask {
            // exec: the lab is the shell's own process, so interrupting it interrupts the lab.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "umask \(umask); exec \"$0\" lab --dir \"$1\"", CommandLine.binary.path, directory]
        } else {
            process.executableURL = CommandLine.binary
            process.arguments = ["lab", "--dir", directory]
        }
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

    @Test func aLockFileThatIsASymbolicLinkIsRefusedInOneLineWithStatus2AndItsTargetIsUntouched() throws {
        let directory = NSTemporaryDirectory() + "mitmsim-lab-link-\(UUID().uuidString)"
        let victim = NSTemporaryDirectory() + "mitmsim-lab-victim-\(UUID().uuidString).txt"
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: victim)
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("the teacher's notes\n".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: directory + "/.mitmsim-lab.lock", withDestinationPath: victim)

        let lab = try CommandLine.run(["lab", "--dir", directory])
        #expect(lab.status == 2)
        #expect(
            lab.standardError
                == "mitmsim: \(directory)/.mitmsim-lab.lock: cannot be written (it is a symbolic link, which the lab does not follow; remove it)\n")
        #expect(lab.standardOutput.isEmpty)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "the teacher's notes\n")
    }

    @Test func underUmask000TheCommandsToPasteAndThePinsAreWritableOnlyByTheirOwnerAndTheKeysPrivate() throws {
        let directory = NSTemporaryDirectory() + "mitmsim-lab-modes-\(UUID().uuidString)"
        let output = NSTemporaryDirectory() + "mitmsim-lab-modes-\(UUID().uuidString).txt"
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: output)
        }
        let lab = try startLab(directory, output: output, umask: "000")
        defer { if lab.process.isRunning { lab.process.terminate() } }
        #expect(lab.printed.contains("^C stops the lab."), "\(lab.printed)")

        func mode(_ name: String) throws -> Int? {
            (try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.posixPermissions] as? NSNumber)?.intValue
        }
        #expect(try mode("commands.txt") == 0o644)
        #expect(try mode("pins.txt") == 0o644)
        #expect(try mode("") == 0o755)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        for file in files where file.hasSuffix(".pem") || file.hasSuffix(".cer") {
            #expect(try mode(file) == 0o644, "\(file)")
        }
        let keys = files.filter { $0.hasSuffix(".key") }
        #expect(keys.contains("lab-attacker-ca.key"))
        for key in keys {
            #expect(try mode(key) == 0o600, "\(key)")
        }
        lab.process.interrupt()
        lab.process.waitUntilExit()
    }
}
