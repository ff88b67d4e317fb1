import Foundation
import PKI

/// A running lab's hold on its directory: an advisory `flock` on `.mitmsim-lab.lock` there.
///
/// A second lab on the same directory would overwrite the PKI the first one serves (and students
/// trust), so it must refuse. The kernel drops the lock when the process ends, however it ends, so a
/// crashed lab never blocks the next one.
final class LabDirectoryLock: Sendable {
    /// Another running lab holds the directory.
    struct Busy: Error, CustomStringConvertible {
        let directory: String
        let holder: String

        var description: String {
            "\(directory): another mitmsim lab (\(holder)) is running on this directory; stop it, or give this one another --dir"
        }
    }

    private let descriptor: Int32

    /// Creates `directory` if needed and takes its lock, or throws `Busy` at once (it never waits).
    init(_ directory: String) throws {
        try FileWriter.createDirectory(directory)
        let path = directory + "/.mitmsim-lab.lock"
        // O_NOFOLLOW: a link planted there must not lead the lab to truncate and write the file it points at.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link, which the lab does not follow; remove it" : String(cString: strerror(errno))
            throw PKIError.cannotWrite(path: path, reason: reason)
        }
        // A hard link, or anything but a regular file, is refused as well, before anything is written to it.
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_nlink == 1 else {
            close(descriptor)
            throw PKIError.cannotWrite(path: path, reason: "it is not a regular file with one name (it is a hard link, a FIFO or a device); remove it")
        }
        guard Self.lock(descriptor) else {
            let reason = errno
            let holder = Self.read(descriptor)
            close(descriptor)
            if reason == EWOULDBLOCK { throw Busy(directory: directory, holder: holder.isEmpty ? "process unknown" : holder) }
            throw PKIError.cannotWrite(path: path, reason: String(cString: strerror(reason)))
        }
        self.descriptor = descriptor
        // Who holds it, for the refusal message of the next lab; the lock, not this text, is what counts.
        let holder = Array("pid \(getpid())".utf8)
        _ = ftruncate(descriptor, 0)
        _ = holder.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    deinit { close(descriptor) }

    /// Takes the lock, trying for a moment before giving up: a process being spawned holds a copy of every
    /// descriptor until it execs (when close-on-exec drops it), so a lab stopped a moment ago can still look
    /// held for a few milliseconds; a lab that is running holds it for good, and is refused all the same.
    private static func lock(_ descriptor: Int32) -> Bool {
        for _ in 0..<25 {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK else { return false }
            usleep(20_000)
        }
        return flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    private static func read(_ descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
