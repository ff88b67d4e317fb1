import Foundation

/// Runs other programs for tests (openssl as an oracle, curl and Python as the lab's real clients), waiting
/// for each to exit.
public enum Subprocess {
    /// Runs `executable` with its standard output and error merged; `input` is written to its standard input.
    /// `pathFirst`, when given, goes before the inherited PATH.
    public static func run(_ executable: String, _ arguments: [String], input: [UInt8]? = nil, pathFirst: String? = nil) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let pathFirst {
            var environment = ProcessInfo.processInfo.environment
            environment["PATH"] = pathFirst + (environment["PATH"].map { ":" + $0 } ?? "")
            process.environment = environment
        }
        let output = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input)) }
        try stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs one command line in bash, as a teacher would paste it.
    public static func paste(_ line: String) throws -> (status: Int32, output: String) {
        try run("/bin/bash", ["-c", line], pathFirst: pythonDirectory)
    }

    /// The directory of the interpreter `python3` starts, looked up once: pasted lines then start that same
    /// interpreter without a version manager's shim (pyenv's costs about 80 ms of CPU per call).
    static let pythonDirectory: String? = {
        let found = try? run("/bin/bash", ["-c", "python3 -c \"$0\"", "import os, sys; print(os.path.dirname(sys.executable))"])
        guard let found, found.status == 0 else { return nil }
        return found.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }()
}
