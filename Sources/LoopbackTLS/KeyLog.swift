import Foundation

/// Appends TLS secrets in the NSS key log format (SSLKEYLOGFILE), so Wireshark can decrypt a capture.
public final class KeyLog: Sendable {
    private let handle: Locked<UnsafeMutablePointer<FILE>>

    /// Opens `path` for appending, creating it with mode 0600 (the secrets decrypt the session).
    public init(path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw NetworkError.socket(operation: "open \(path)", reason: String(cString: strerror(errno))) }
        guard let file = fdopen(descriptor, "a") else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw NetworkError.socket(operation: "fdopen \(path)", reason: reason)
        }
        handle = Locked(file)
    }

    deinit { handle.withLock { _ = fclose($0) } }

    func append(_ line: String) {
        handle.withLock { file in
            fputs(line + "\n", file)
            fflush(file)
        }
    }
}
