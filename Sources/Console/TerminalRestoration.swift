import Foundation

/// Puts the terminal back on fatal signals, then lets the signal do what it did before (so ^C still ends the
/// program and a crash still reaches the backtracer).
///
/// The signal handler makes only async-signal-safe calls (write, tcsetattr, sigaction, signal, raise) on
/// memory prepared before it can run: it never enters ncurses (endwin is not signal-safe), malloc or the
/// Swift runtime. What endwin would do, it replays: the terminfo strings that leave curses mode, written
/// as bytes given to `activate(leavingCursesWith:)`, and the terminal modes saved at `install()`. So this file
/// needs POSIX only; `Terminal` reads terminfo and calls endwin at a normal exit.
enum TerminalRestoration {
    nonisolated(unsafe) private static var installed = false

    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGABRT, SIGILL, SIGTRAP, SIGBUS, SIGFPE]
    /// The signals a caller may ask to receive as a stop request rather than a restore-and-end.
    private static let stoppable: Set<Int32> = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    private static let slots = 65
    private static let resetCapacity = 256

    /// What the handler reads, in C memory allocated once and never freed. These statics are first read in
    /// `install()`, before any handler exists, so in the handler each is a plain load of an initialised global.
    private struct Prepared {
        /// 1 while curses mode may be on.
        var active: sig_atomic_t = 0
        var hasSavedModes: Int32 = 0
        var resetLength = 0
        /// Bit n set: signal n only records itself in `stopSignal` (the program stops on its own, restoring the terminal then).
        var stopMask: UInt64 = 0
        /// The first stop signal that arrived; 0 for none.
        var stopSignal: sig_atomic_t = 0
    }
    nonisolated(unsafe) private static let prepared: UnsafeMutablePointer<Prepared> = allocate(Prepared())
    /// The terminal's modes before curses changed them.
    nonisolated(unsafe) private static let savedModes: UnsafeMutablePointer<termios> = allocate(termios())
    /// The bytes that leave curses mode on this terminal (rmcup, rmkx, sgr0, cnorm).
    nonisolated(unsafe) private static let resetBytes: UnsafeMutablePointer<UInt8> = {
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: resetCapacity)
        pointer.initialize(repeating: 0, count: resetCapacity)
        return pointer
    }()
    /// The actions in place before ours, indexed by signal number.
    nonisolated(unsafe) private static let previous: UnsafeMutablePointer<sigaction> = {
        let pointer = UnsafeMutablePointer<sigaction>.allocate(capacity: slots)
        pointer.initialize(repeating: sigaction(), count: slots)
        return pointer
    }()

    private static func allocate<T>(_ value: T) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
        pointer.initialize(to: value)
        return pointer
    }

    /// True while curses mode may be on: between `activate` and `deactivate`, unless a signal restored the terminal.
    static var isActive: Bool { prepared.pointee.active != 0 }

    /// The first of the `stopping` signals given to `install` that has arrived since; 0 for none.
    static var stopSignal: Int32 { prepared.pointee.stopSignal }

    /// Before newterm: saves the terminal's modes and installs the handlers; `stopping` signals will only be recorded.
    static func install(stopping: Set<Int32> = []) {
        prepared.pointee.stopSignal = 0
        prepared.pointee.stopMask = stopping.intersection(stoppable).reduce(0) { $0 | 1 << UInt64($1) }
        guard !installed else { return }
        installed = true
        prepared.pointee.hasSavedModes = tcgetattr(STDIN_FILENO, savedModes) == 0 ? 1 : 0
        _ = resetBytes
        let restore = previous
        for signal in signals where Int(signal) < slots {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                let prepared = TerminalRestoration.prepared
                if signal > 0, signal < 64, prepared.pointee.stopMask & (1 << UInt64(signal)) != 0 {
                    // A plain store: the program's loop sees it within one key timeout (get_wch also returns at once with EINTR).
                    if prepared.pointee.stopSignal == 0 { prepared.pointee.stopSignal = signal }
                    return
                }
                if prepared.pointee.active != 0 {
                    prepared.pointee.active = 0
                    _ = write(STDOUT_FILENO, TerminalRestoration.resetBytes, prepared.pointee.resetLength)
                    if prepared.pointee.hasSavedModes != 0 { _ = tcsetattr(STDIN_FILENO, TCSANOW, TerminalRestoration.savedModes) }
                }
                if signal >= 0, signal < 65 {
                    sigaction(signal, TerminalRestoration.previous + Int(signal), nil)
                } else {
                    Glibc.signal(signal, SIG_DFL)
                }
                raise(signal)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signal, &action, restore + Int(signal))
        }
    }

    /// After newterm: keeps the bytes that leave curses mode (`sequences`, the terminfo strings, padding dropped)
    /// and arms the handler.
    static func activate(leavingCursesWith sequences: [[UInt8]]) {
        let bytes = sequences.flatMap(withoutPadding)
        let count = min(bytes.count, resetCapacity)
        resetBytes.update(from: bytes, count: count)
        prepared.pointee.resetLength = count
        prepared.pointee.active = 1
    }

    /// Curses mode is off (endwin ran): the handler has nothing to restore.
    static func deactivate() {
        prepared.pointee.active = 0
    }

    /// Drops terminfo delays (`$<5>`, `$<2*/>`): tputs would wait there, a raw write needs none.
    private static func withoutPadding(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "$"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "<"),
                let end = bytes[index...].firstIndex(of: UInt8(ascii: ">"))
            {
                index = end + 1
                continue
            }
            result.append(bytes[index])
            index += 1
        }
        return result
    }

    static func uninstall() {
        guard installed else { return }
        installed = false
        prepared.pointee.stopMask = 0
        for signal in signals where Int(signal) < slots {
            sigaction(signal, previous + Int(signal), nil)
        }
    }
}
