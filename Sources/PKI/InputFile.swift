import Foundation

/// Reads a file a user named (a certificate, a key, a `.p12`, a lesson), refusing in words what cannot be one.
///
/// The type is checked with `stat` before anything is opened: opening a FIFO would wait for a writer
/// forever. A device is read without waiting, so `/dev/null` reads as empty and a terminal is refused.
/// Never more than `limit` bytes are read, so a huge file costs no more than a small one.
package enum InputFile {
    /// Why a file was refused, as a predicate that follows its path: "is a directory, not a file".
    package struct Refusal: Error, Equatable, CustomStringConvertible {
        package let reason: String

        package var description: String { reason }
    }

    package static func read(_ path: String, limit: Int, kind: String) throws(Refusal) -> [UInt8] {
        func refuse(_ reason: String) -> Refusal { Refusal(reason: reason) }
        var status = stat()
        guard stat(path, &status) == 0 else { throw refuse(errno == ENOENT ? "no such file" : "cannot be read (\(String(cString: strerror(errno))))") }
        let type = status.st_mode & S_IFMT
        switch type {
        case S_IFREG:
            guard status.st_size <= limit else { throw refuse(tooLarge(limit, kind)) }
        case S_IFCHR, S_IFBLK:
            break
        case S_IFDIR:
            throw refuse("is a directory, not a file")
        case S_IFIFO:
            throw refuse("is a FIFO (named pipe), not a regular file; save what it carries to a file and name that")
        default:
            throw refuse("is a socket, not a regular file")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { throw refuse("cannot be read (\(String(cString: strerror(errno))))") }
        defer { close(descriptor) }
        // The path may have been replaced between stat and open; what is open now is what counts.
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == type else { throw refuse("changed while it was being opened") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count <= limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, min($0.count, limit + 1 - bytes.count)) }
            if count > 0 {
                bytes += chunk.prefix(count)
            } else if count == 0 {
                break
            } else if errno == EAGAIN {
                throw refuse("is a device with nothing to read (such as a terminal), not a file")
            } else if errno != EINTR {
                throw refuse("cannot be read (\(String(cString: strerror(errno))))")
            }
        }
        guard bytes.count <= limit else { throw refuse(tooLarge(limit, kind)) }
        return bytes
    }

    /// `read` for PKI material (certificates, keys, `.p12`): a refusal is `PKIError.cannotRead`.
    static func read(_ path: String, kind: String) throws(PKIError) -> [UInt8] {
        do {
            return try read(path, limit: Certificate.fileSizeLimit, kind: kind)
        } catch {
            throw .cannotRead(path: path, reason: error.reason)
        }
    }

    /// "64 KiB", "1 MiB": how limits are written in messages and in Docs/limits.md.
    package static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : bytes % 1024 == 0 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }

    private static func tooLarge(_ limit: Int, _ kind: String) -> String {
        "is larger than \(size(limit)), the most mitmsim reads from \(kind)"
    }
}
