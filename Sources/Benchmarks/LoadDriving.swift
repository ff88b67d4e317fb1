import Foundation
import LoopbackTLS
import Simulation

/// Runs the external load client (`LoadClient` in a process of its own) and reads its one-line tally.
enum LoadClientProcess {
    static func run(_ command: [String], port: UInt16, host: String = "bank.test", connections: Int = 1_000_000, seconds: Double, concurrency: Int = 1)
        throws -> LoadClient.Tally
    {
        guard let executable = command.first else { throw BenchmarkError.loadClientFailed(reason: "no load client command") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            Array(command.dropFirst()) + [
                "--port", "\(port)", "--host", host, "--connections", "\(connections)", "--seconds", "\(seconds)", "--concurrency", "\(concurrency)",
            ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let tally = LoadClient.Tally(line: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchmarkError.loadClientFailed(reason: "exit status \(process.terminationStatus), printed '\(text.prefix(80))'")
        }
        return tally
    }
}

/// CPU time (user and system) a process has used so far.
enum ProcessCPU {
    /// This process's when `process` is nil; else that process's and its descendants' (sslsplit works in a child).
    static func seconds(_ process: Int32? = nil) throws -> Double {
        guard let process else {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return [usage.ru_utime, usage.ru_stime].map { Double($0.tv_sec) + Double($0.tv_usec) / 1e6 }.reduce(0, +)
        }
        let table = ProcessTable.read()
        guard table.contains(where: { $0.process == process }) else { throw BenchmarkError.loadClientFailed(reason: "process \(process) is gone") }
        let tree = ProcessTable.tree(of: process, in: table)
        return table.filter { tree.contains($0.process) }.map(\.ticks).reduce(0, +) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// The processes of this machine, from /proc.
enum ProcessTable {
    typealias Entry = (process: Int32, parent: Int32, ticks: Double)

    static func read() -> [Entry] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init).compactMap(entry)
    }

    /// `process` and all its descendants.
    static func tree(of process: Int32, in table: [Entry] = read()) -> Set<Int32> {
        var tree: Set<Int32> = [process]
        var grew = true
        while grew {
            let children = table.filter { tree.contains($0.parent) && !tree.contains($0.process) }.map(\.process)
            tree.formUnion(children)
            grew = !children.isEmpty
        }
        return tree
    }

    /// A process's parent and its CPU ticks (its own and its reaped children's), from /proc/PID/stat; nil once it is gone.
    private static func entry(_ process: Int32) -> Entry? {
        guard let line = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8), let name = line.lastIndex(of: ")") else { return nil }
        // The command name may hold spaces: fields are counted after its closing parenthesis, where the
        // state (field 3 of the line) comes first: the parent is field 4, utime to cstime are fields 14 to 17.
        let fields = line[line.index(after: name)...].split(separator: " ")
        guard fields.count > 14, let parent = Int32(fields[1]) else { return nil }
        return (process, parent, fields[11...14].compactMap { Double($0) }.reduce(0, +))
    }
}

/// The lab's resident memory before and after many connections through its proxy.
struct LabMemory {
    let lesson: String
    let before: Double
    let after: Double
    let connections: Int

    static let warmUp = 100

    /// A lab (the first forging lesson's world, in a temporary directory) driven by the external client:
    /// `warmUp` connections, a reading, `load.labConnections` more with two clients at once, another reading.
    static func measure(_ load: NetworkBenchmark.Load) throws -> LabMemory {
        guard let lesson = try ScenarioCatalog.builtIn.first(where: { $0.attacker.attack == .forge }) else { throw BenchmarkError.noLessons }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mitmsim-bench-lab-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lab = try Lab(lesson, directory: directory) { _ in }
        defer { lab.stop() }
        let host = lesson.server.host
        _ = try LoadClientProcess.run(load.client, port: lab.proxyPort, host: host, connections: warmUp, seconds: 600)
        let before = try residentMegabytes()
        let tally = try LoadClientProcess.run(load.client, port: lab.proxyPort, host: host, connections: load.labConnections, seconds: 3600, concurrency: 2)
        return LabMemory(lesson: lesson.id, before: before, after: try residentMegabytes(), connections: tally.connections)
    }

    /// VmRSS of this process, in MB.
    static func residentMegabytes() throws -> Double {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { throw BenchmarkError.loadClientFailed(reason: "no VmRSS in /proc/self/status") }
        return kilobytes * 1024 / 1e6
    }

    var report: [String] {
        [
            "lab memory (world of '\(lesson)', in this process before the rest of the benchmark):",
            String(
                format: "  RSS %.1f MB after %d warm-up connections, %.1f MB after %d more (two clients at once): growth %.1f MB (target < 10)",
                before, Self.warmUp, after, connections, after - before),
        ]
    }
}
