import Foundation
import TestSupport
import Testing

/// The real `mitmsim tui` in a real terminal: a detached tmux session, keys sent with `send-keys`,
/// the screen read with `capture-pane`. Only the contractual strings are asserted.
@Suite("The console in a real terminal", .serialized, .awayFromThePool)
struct ConsoleEndToEndTests {
    static let scenarios = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios")

    @Test("A lesson opened by id shows its verdict, pinning rejects the installed CA, and q restores the terminal")
    func installedCALessonAndPinning() async throws {
        let tmux = try TmuxSession(columns: 100, rows: 30, arguments: ["03-installed-attacker-ca"])
        defer { tmux.kill() }

        try await tmux.waitFor("the lesson, its verdict and the leak") { screen in
            screen.contains("03-installed-attacker-ca") && screen.contains("ACCEPTED at chainTrust")
                && (screen.contains("LEAKED") || screen.contains("password"))
        }
        tmux.send("p")  // pinning: none → publicKey
        tmux.send("p")  // publicKey → certificate
        try await tmux.waitFor("certificate pinning rejecting the forged chain") { $0.contains("REJECTED at pinnedAnchors") }

        try await tmux.quit()
    }

    @Test("The picker filters with / and Enter opens the lesson")
    func pickerFilterAndOpen() async throws {
        let tmux = try TmuxSession(columns: 80, rows: 24, arguments: [])
        defer { tmux.kill() }

        try await tmux.waitFor("the lesson picker") { $0.contains("01-no-attacker") }
        tmux.send("/")
        tmux.type("passthrough")
        let filtered = try await tmux.waitFor("the list narrowed to 04-passthrough") {
            $0.contains("04-passthrough") && !$0.contains("01-no-attacker")
        }
        tmux.send("Enter")
        try await tmux.waitFor("the 04-passthrough walkthrough") {
            $0 != filtered && $0.contains("04-passthrough") && $0.contains("ACCEPTED")
        }
        tmux.send("q")
        tmux.send("q")
        try await tmux.waitFor("the program ending with status 0") { $0.contains("EXIT=0") }
    }

    @Test("On an 80×24 projector, Tab then PgDn reach the lesson's last line, under a one-line key hint")
    func projectorReachesTheLessonsLastLine() async throws {
        let tmux = try TmuxSession(columns: 80, rows: 24, arguments: ["02-forged-untrusted-ca"])
        defer { tmux.kill() }
        try await tmux.waitFor("the walkthrough with its key hint") { $0.contains("REJECTED at chainTrust") && $0.contains(" Tab focus ") }
        tmux.send("Tab")
        tmux.send("Tab")
        for _ in 0..<20 { tmux.send("NPage") }
        try await tmux.waitFor("the lesson pane at its last line") { screen in
            let rule = screen.components(separatedBy: "\n").first { $0.hasPrefix("── ▶ lesson") } ?? ""
            let numbers = rule.split { !$0.isNumber }.compactMap { Int($0) }
            return numbers.count == 3 && numbers[1] == numbers[2]
        }
        try await tmux.quit()
    }

    @Test("In classroom mode the title names the lesson by number and the step counter has no total before the vote")
    func classroomHidesTheIdAndTheStepTotal() async throws {
        let tmux = try TmuxSession(columns: 80, rows: 24, arguments: ["03-installed-attacker-ca", "--classroom"])
        defer { tmux.kill() }
        let question = try await tmux.waitFor("the question") { $0.contains("Will the client accept this chain? (y/n)") }
        #expect(question.contains("lesson 03: The user installed the attacker's CA"))
        #expect(!question.contains("03-installed-attacker-ca"))
        #expect(question.contains(" step 1 ──") && !question.contains(" step 1 of"), "\(question)")
        tmux.send("y")
        try await tmux.waitFor("the verdict and the step total") { $0.contains("ACCEPTED at chainTrust") && $0.contains(" step 1 of 31 ") }
        try await tmux.quit()
    }

    @Test("The lab's console shows a stolen password live, and q stops the lab keeping its files")
    func labConsoleShowsFlowsLive() async throws {
        let directory = NSTemporaryDirectory() + "mitmsim-lab-tui-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tmux = try TmuxSession(columns: 120, rows: 32, command: "lab", arguments: ["--tui", "--dir", directory])
        defer { tmux.kill() }
        try await tmux.waitFor("the lab's screen") { $0.contains("classroom lab") && $0.contains("none yet") }

        let commands = try String(contentsOfFile: directory + "/commands.txt", encoding: .utf8).components(separatedBy: "\n")
        let index = try #require(commands.firstIndex { $0.hasPrefix("# 2. curl -k through the attacker") })
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/bin/bash")
        curl.arguments = ["-c", commands[index + 2]]
        curl.standardOutput = FileHandle.nullDevice
        curl.standardError = FileHandle.nullDevice
        try curl.run()
        curl.waitUntilExit()
        #expect(curl.terminationStatus == 0)

        try await tmux.waitFor("the stolen password") { $0.contains("STOLEN password 'hunter2'") }
        try await tmux.quit()
        #expect(FileManager.default.fileExists(atPath: directory + "/pins.txt"))
    }

    @Test("A terminal too small says so, and growing it shows the walkthrough")
    func tooSmallThenResized() async throws {
        let tmux = try TmuxSession(columns: 60, rows: 15, arguments: ["03-installed-attacker-ca"])
        defer { tmux.kill() }

        try await tmux.waitFor("the too-small message") { $0.contains("too small") }
        try tmux.resize(columns: 100, rows: 30)
        try await tmux.waitFor("the walkthrough after the resize") { screen in
            !screen.contains("too small") && screen.contains("03-installed-attacker-ca")
                && screen.contains("ACCEPTED at chainTrust")
        }
        try await tmux.quit()
    }

    @Test("Without colour and without UTF-8 the walkthrough still reads, drawn in ASCII")
    func noColorAndASCII() async throws {
        let tmux = try TmuxSession(
            columns: 100, rows: 30, arguments: ["02-forged-untrusted-ca"],
            environment: ["LANG=C", "NO_COLOR=1"])
        defer { tmux.kill() }

        let screen = try await tmux.waitFor("the verdict of 02-forged-untrusted-ca") { $0.contains("REJECTED at chainTrust") }
        #expect(!screen.contains("─"), "a C locale must draw lines in ASCII, got:\n\(screen)")
        #expect(!screen.contains("│"), "a C locale must draw lines in ASCII, got:\n\(screen)")
        try await tmux.quit()
    }

    @Test(
        "A terminal the console cannot draw on is refused in one line with status 2, pointing at mitmsim run",
        arguments: [("dumb", "the terminal (TERM=dumb) cannot move its cursor"), ("no-such-terminal", "(TERM=no-such-terminal)"), ("", "TERM is not set")])
    func unusableTerminalIsRefused(term: String, reason: String) async throws {
        let tmux = try TmuxSession(columns: 200, rows: 10, arguments: ["03-installed-attacker-ca"], environment: ["TERM=\(term)"])
        defer { tmux.kill() }

        let screen = try await tmux.waitFor("the program ending") { $0.contains("EXIT=") }
        let lines = screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(lines.count == 2, "one line, then the status; the screen was:\n\(screen)")
        #expect(lines.first?.hasPrefix("mitmsim: ") == true && lines.first?.contains(reason) == true, "\(screen)")
        #expect(lines.first?.hasSuffix("`mitmsim run 03-installed-attacker-ca` shows this lesson as text instead") == true, "\(screen)")
        #expect(lines.last == "EXIT=2")
    }

    @Test("^C ends the program with a failure status and leaves a usable shell")
    func controlCRestoresTheTerminal() async throws {
        let tmux = try TmuxSession(columns: 100, rows: 30, arguments: ["03-installed-attacker-ca"], interactiveShellAfterwards: true)
        defer { tmux.kill() }

        try await tmux.waitFor("the walkthrough") { $0.contains("ACCEPTED at chainTrust") }
        tmux.send("C-c")
        let ended = try await tmux.waitFor("the program ending and the shell prompt") { screen in
            screen.contains("EXIT=") && screen.contains(TmuxSession.prompt)
        }
        let status = ended.split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: "EXIT=") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }.last
        #expect(status != nil && status != 0, "^C must end the program with a non-zero status, got:\n\(ended)")

        // In a restored terminal the shell echoes what is typed and runs it on Enter.
        tmux.type("echo term''inal-ok")
        tmux.send("Enter")
        try await tmux.waitFor("the shell echoing and running a command") { screen in
            screen.contains("echo term''inal-ok")
                && screen.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == "terminal-ok" }
        }
    }
}

/// A detached tmux session, on a server of its own (its own socket), running `mitmsim tui`.
final class TmuxSession {
    static let prompt = "mitmsim-test-prompt$"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let socket: String
    let name: String
    let tmux: String
    private var killed = false

    /// Starts `mitmsim tui ARGUMENTS --scenarios …` (or another subcommand) at the given size. `environment` overrides LANG etc. for mitmsim only.
    init(
        columns: Int, rows: Int, command subcommand: String = "tui", arguments: [String], environment: [String] = [],
        interactiveShellAfterwards: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        guard let tmux = Self.findTmux() else {
            Issue.record(
                "tmux is not installed: the console end-to-end tests need it (apt-get install tmux; .ci/run installs it)",
                sourceLocation: sourceLocation)
            throw Failure(description: "tmux is not installed")
        }
        self.tmux = tmux
        let unique = "mitmsim-\(getpid())-\(UUID().uuidString.prefix(8))"
        socket = NSTemporaryDirectory() + unique + ".tmux"
        name = unique

        let binary = CommandLine.binary.path
        #expect(
            FileManager.default.isExecutableFile(atPath: binary), "mitmsim was not built at \(binary)",
            sourceLocation: sourceLocation)
        var variables = ["LANG=C.UTF-8", "TERM=xterm-256color"]
        for variable in environment {
            let key = variable.prefix { $0 != "=" }
            variables.removeAll { $0.hasPrefix(key + "=") }
            variables.append(variable)
        }
        let invocation = (["env"] + variables + [binary, subcommand] + arguments + ["--scenarios", ConsoleEndToEndTests.scenarios.path])
            .map(Self.quote).joined(separator: " ")
        // The trap keeps the shell alive when ^C reaches the whole process group, so it can print the status;
        // a trapped (not ignored) signal is reset to the default in mitmsim.
        let afterwards = interactiveShellAfterwards ? "PS1='\(Self.prompt) ' exec sh -i" : "sleep 30"
        let command = "trap 'true' INT; \(invocation); echo EXIT=$?; \(afterwards)"
        try run(["new-session", "-d", "-s", name, "-x", String(columns), "-y", String(rows), command], check: true)
    }

    deinit { kill() }

    /// Sends keys by tmux name (`Enter`, `C-c`, `Right`) or single characters.
    func send(_ key: String) {
        _ = try? run(["send-keys", "-t", name, key])
    }

    /// Types `text` literally.
    func type(_ text: String) {
        _ = try? run(["send-keys", "-t", name, "-l", text])
    }

    func resize(columns: Int, rows: Int) throws {
        try run(["resize-window", "-t", name, "-x", String(columns), "-y", String(rows)], check: true)
    }

    /// The visible screen, one line per row.
    func capture() -> String {
        (try? run(["capture-pane", "-p", "-t", name])) ?? ""
    }

    /// Polls the screen every 50 ms until `condition` holds; after `timeout` seconds records a failure with the last screen.
    /// It sleeps between polls without holding one of Swift Testing's threads, so other tests run meanwhile.
    @discardableResult
    func waitFor(
        _ what: String, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: (String) -> Bool
    ) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = capture()
        while !condition(screen) {
            if Date() > deadline {
                Issue.record(
                    "timed out after \(Int(timeout)) s waiting for \(what); the screen was:\n\(screen)",
                    sourceLocation: sourceLocation)
                throw Failure(description: "timed out waiting for \(what)")
            }
            try await Task.sleep(for: .milliseconds(50))
            screen = capture()
        }
        return screen
    }

    /// Presses q until the program ends (once from a lesson opened by id, or twice via the picker) and expects status 0.
    func quit(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let before = capture()
        send("q")
        let after = try await waitFor("the screen to change after q", sourceLocation: sourceLocation) { $0 != before }
        if !after.contains("EXIT=") { send("q") }
        try await waitFor("the program ending with EXIT=0", sourceLocation: sourceLocation) { $0.contains("EXIT=0") }
    }

    func kill() {
        guard !killed else { return }
        killed = true
        _ = try? run(["kill-session", "-t", name])
        _ = try? run(["kill-server"])
        unlink(socket)
    }

    /// Runs tmux and returns its standard output.
    ///
    /// Spawned and reaped here with posix_spawn/waitpid, output through files: with Foundation's `Process`,
    /// `waitUntilExit` never returned for the client of `new-session` (which forks the daemonised server).
    @discardableResult
    func run(_ arguments: [String], check: Bool = false) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        for variable in ["TMUX", "TMUX_PANE", "LC_ALL", "LC_CTYPE", "NO_COLOR"] { environment[variable] = nil }
        environment["LANG"] = "C.UTF-8"  // tmux itself wants a UTF-8 locale; the pane command sets mitmsim's own
        environment["SHELL"] = "/bin/sh"  // the pane command uses POSIX sh syntax ($?, trap)
        environment["SWIFT_BACKTRACE"] = "interactive=no"  // a crash must not wait for a key in the pane

        let base = NSTemporaryDirectory() + "mitmsim-tmux-" + UUID().uuidString
        let outputPath = base + ".out"
        let errorPath = base + ".err"
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv = ([tmux, "-S", socket, "-f", "/dev/null"] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for argument in argv { free(argument) }
            for variable in envp { free(variable) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tmux, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw Failure(description: "cannot run \(tmux): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else {
                status = 0
                break
            }  // reaped elsewhere: the output files still tell
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        if check, exitStatus != 0 {
            let error = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw Failure(description: "tmux \(arguments.joined(separator: " ")) failed (\(exitStatus)): \(error)")
        }
        return output
    }

    private static func findTmux() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]
        return directories.map { $0 + "/tmux" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func quote(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// `lab --tui` told to stop by a signal: a service manager's SIGTERM, a stray ^\ (SIGQUIT), ^C, a closed terminal's SIGHUP.
@Suite("The lab's console stopped by a signal", .serialized, .awayFromThePool)
struct LabConsoleSignalTests {
    @Test(
        "SIGTERM, SIGQUIT, SIGINT and SIGHUP stop the lab's console as q does: a restored terminal, the lab's last line, status 0",
        arguments: ["TERM", "QUIT", "INT", "HUP"])
    func signalStopsTheLabCleanly(signal: String) async throws {
        let directory = NSTemporaryDirectory() + "mitmsim-lab-signal-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tmux = try TmuxSession(columns: 80, rows: 24, command: "lab", arguments: ["--tui", "--dir", directory])
        defer { tmux.kill() }
        let screen = try await tmux.waitFor("the lab's screen") { $0.contains("classroom lab") && $0.contains("none yet") }
        // At 80 columns the title still names the attacker's port.
        let commands = try String(contentsOfFile: directory + "/commands.txt", encoding: .utf8)
        let port = try #require(commands.range(of: #"--proxy http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression)).upperBound
        let proxy = String(commands[..<port].reversed().prefix { $0 != ":" }.reversed())
        #expect(screen.components(separatedBy: "\n").first?.contains("attacker on 127.0.0.1:\(proxy)") == true, "\(screen)")

        let mitmsim = try #require(tmux.childPIDs().first, "no process under the pane")
        let number = ["TERM": SIGTERM, "QUIT": SIGQUIT, "INT": SIGINT, "HUP": SIGHUP][signal] ?? SIGKILL
        #expect(kill(mitmsim, number) == 0)
        let ended = try await tmux.waitFor("the lab stopping") { $0.contains("EXIT=") }
        // The pane is 80 columns wide: the line is wrapped.
        #expect(
            ended.replacingOccurrences(of: "\n", with: "").contains("mitmsim lab: stopped by SIG\(signal); the files in \(directory)/ are kept."), "\(ended)")
        #expect(ended.contains("EXIT=0"), "\(ended)")
        #expect(!ended.contains("classroom lab") && !ended.contains("Backtrace") && !ended.contains("Crash"), "\(ended)")
    }
}

extension TmuxSession {
    /// The processes the pane's shell started (mitmsim, while it runs).
    func childPIDs() -> [pid_t] {
        guard
            let shell = (try? run(["display-message", "-p", "-t", name, "#{pane_pid}"])).flatMap({ pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }),
            let children = try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        else { return [] }
        return children.split(separator: " ").compactMap { pid_t($0) }
    }
}
