import Foundation

/// Atomic writing for PKI material (`InputFile` reads).
///
/// Writes go through `FileWriter`: a file is written in full beside its target and renamed into place, so a
/// reader never sees a half-written key, and every file is created with mode 0600 from the first byte.
enum FileSystem {
    static func writeAtomically(_ bytes: [UInt8], to path: String, permissions: mode_t) throws {
        // Split by hand: Foundation's `deletingLastPathComponent` traps on a one-character name.
        guard let slash = path.lastIndex(of: "/") else {
            return try FileWriter.write([FileWriter.File(path, bytes, permissions: permissions)], into: ".")
        }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        try FileWriter.write([FileWriter.File(String(path[path.index(after: slash)...]), bytes, permissions: permissions)], into: directory)
    }
}

/// Writes files into a directory as one change: every file replaces its namesake, or, when any of them cannot be
/// written, none does and the directory keeps what it had (a previous export stays whole).
///
/// Every mode is set as given, whatever the umask. The files are first written in full and synced into a staging
/// directory inside the target (`.mitmsim-XXXXXX`, on the same file system, so renames never copy); only then are
/// they renamed into place one by one, each namesake first moved aside into the staging directory so that a failed
/// rename can put back every file already replaced. The last file replaces its namesake in one rename.
///
/// A rename is atomic per file, not per directory: a crash between two renames can leave old and new files mixed
/// (and the staging directory behind), and for a moment during the change a file other than the last is absent.
/// A directory swap would avoid both but would also move everything else in the directory (the lab's lock, a
/// teacher's own files in `--out`), so it is not used.
public enum FileWriter {
    /// One file: its name in the directory (no `/`), its bytes and its mode.
    public struct File: Sendable {
        public let name: String
        public let bytes: [UInt8]
        public let permissions: mode_t

        public init(_ name: String, _ bytes: [UInt8], permissions: mode_t) {
            self.name = name
            self.bytes = bytes
            self.permissions = permissions
        }
    }

    /// Creates `path` and its missing parents with mode 0755, whatever the umask; existing directories are left as they are.
    public static func createDirectory(_ path: String) throws {
        var prefix = ""
        for (index, component) in path.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
            prefix += (index == 0 ? "" : "/") + component
            guard !component.isEmpty, component != ".", component != ".." else { continue }
            if mkdir(prefix, 0o755) == 0 {
                guard chmod(prefix, 0o755) == 0 else { throw PKIError.cannotWrite(path: prefix, reason: reason()) }
            } else if errno != EEXIST {
                throw PKIError.cannotWrite(path: path, reason: "cannot create the directory: " + reason())
            }
        }
    }

    /// Writes `files` into `directory`, which must exist, replacing their namesakes all together or not at all.
    public static func write(_ files: [File], into directory: String) throws {
        func target(_ name: String) -> String { directory + "/" + name }
        var names = Set<String>()
        for file in files {
            // Names come from lesson files, which get shared: none may reach outside `directory`.
            guard !file.name.isEmpty, file.name != ".", file.name != "..", !file.name.contains("/"), !file.name.contains("\0") else {
                throw PKIError.cannotWrite(path: target(file.name), reason: "not a plain file name")
            }
            guard names.insert(file.name).inserted else { throw PKIError.cannotWrite(path: target(file.name), reason: "two of the files have this name") }
        }
        var template = Array((directory + "/.mitmsim-XXXXXX").utf8CString)
        guard let stage = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }).map({ String(cString: $0) }) else {
            throw PKIError.cannotWrite(path: directory, reason: reason())
        }
        func staged(_ name: String) -> String { stage + "/new-" + name }
        func aside(_ name: String) -> String { stage + "/old-" + name }
        defer {
            // Only what this write put there: a plain unlink never removes a directory.
            for file in files {
                unlink(staged(file.name))
                unlink(aside(file.name))
            }
            rmdir(stage)
        }
        for file in files {
            let descriptor = open(staged(file.name), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw PKIError.cannotWrite(path: target(file.name), reason: reason()) }
            if let failure = fill(descriptor, with: file.bytes, permissions: file.permissions) {
                throw PKIError.cannotWrite(path: target(file.name), reason: failure)
            }
        }
        // The files in place so far, and whether each one's namesake is aside (to be put back if a later one fails).
        var replaced: [(name: String, movedAside: Bool)] = []
        /// Moves `name` into place (its namesake aside first unless it is the last); the reason it could not, or nil.
        func replace(_ name: String, isLast: Bool) -> String? {
            var status = stat()
            let exists = lstat(target(name), &status) == 0
            if exists, status.st_mode & S_IFMT == S_IFDIR { return "it is a directory" }
            let movedAside = exists && !isLast
            if movedAside, rename(target(name), aside(name)) != 0 { return reason() }
            guard rename(staged(name), target(name)) == 0 else {
                let failure = reason()
                if movedAside { rename(aside(name), target(name)) }
                return failure
            }
            replaced.append((name, movedAside))
            return nil
        }
        for (index, file) in files.enumerated() {
            if let failure = replace(file.name, isLast: index == files.count - 1) {
                for done in replaced.reversed() {
                    _ = done.movedAside ? rename(aside(done.name), target(done.name)) : unlink(target(done.name))
                }
                throw PKIError.cannotWrite(path: target(file.name), reason: failure)
            }
        }
        syncDirectory(directory)
    }

    /// Sets the mode, writes every byte and syncs; closes `descriptor` and returns the reason it failed, or nil.
    private static func fill(_ descriptor: Int32, with bytes: [UInt8], permissions: mode_t) -> String? {
        defer { close(descriptor) }
        guard fchmod(descriptor, permissions) == 0 else { return reason() }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard written >= 0 else { return reason() }
            offset += written
        }
        return fsync(descriptor) == 0 ? nil : reason()
    }

    /// Makes the renames durable; best effort, as some file systems cannot sync a directory.
    private static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
