import Foundation
import Testing

/// `mitmsim lab --listen ADDR` as a teacher starts it, on 127.0.0.2 (loopback: nothing leaves this machine).
@Suite(.serialized) struct LabListenTests {
    /// Starts the lab, reads its output until it says how to stop it (or 10 s pass), then stops it with ^C.
    static func startAndStop(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let directory = NSTemporaryDirectory() + "mitmsim-lab-cli-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = Process()
        process.executableURL = CommandLine.binary
        process.arguments = ["lab"] + arguments + ["--dir", directory]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        let collected = LockedText()
        output.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
        try process.run()
        for _ in 0..<200 where process.isRunning && !collected.text.contains("^C stops the lab") { usleep(50_000) }
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        collected.append(output.fileHandleForReading.readDataToEndOfFile())
        return (process.terminationStatus, collected.text)
    }

    @Test func listeningOnAnotherAddressWarnsAndPrintsCommandsForThatAddress() throws {
        let (status, output) = try Self.startAndStop(["--listen", "127.0.0.2"])
        #expect(status == 0, "\(output)")
        #expect(
            output.contains(
                "WARNING: --listen 127.0.0.2: anyone who can reach 127.0.0.2 can connect to the bank and the attacker; "
                    + "127.0.0.2 is a loopback address, so that is only this machine."), "\(output)")
        #expect(output.contains("--proxy http://127.0.0.2:"))
        #expect(output.contains("-connect 127.0.0.2:"))
        #expect(!output.contains("127.0.0.1"), "\(output)")
    }

    @Test func withoutListenEverythingStaysOnLoopbackWithoutAWarning() throws {
        let (_, output) = try Self.startAndStop([])
        #expect(output.contains("Everything listens on 127.0.0.1 only."))
        #expect(!output.contains("WARNING"))
    }

    @Test(arguments: ["192.168.1", "300.1.1.1", "bank.test", "0.0.0.0"])
    func aBadListenAddressIsOneLineAndExit2(_ address: String) throws {
        let result = try CommandLine.run(["lab", "--listen", address, "--dir", NSTemporaryDirectory() + "mitmsim-never-\(UUID().uuidString)"])
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("mitmsim: --listen '\(address)' cannot be listened on: "), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
    }
}

/// Output collected from a pipe's handler thread.
private final class LockedText: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ more: Data) { lock.withLock { data.append(more) } }

    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
