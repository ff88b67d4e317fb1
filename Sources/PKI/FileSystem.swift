import Foundation

/// Atomic writing for PKI material (`InputFile` reads).
///
/// Writes go to a temporary file in the same directory that is renamed into place, so a reader never
/// sees a half-written key, and private keys are created with mode 0600 from the first byte.
enum FileSystem {
    static func writeAtomically(_ bytes: [UInt8], to path: String, permissions: mode_t) throws {
        let directory = (path as NSString).deletingLastPathComponent
        var template = Array(((directory.isEmpty ? "." : directory) + "/.mitmsim-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else { throw PKIError.cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure: String? = nil
        if fchmod(descriptor, permissions) != 0 { failure = String(cString: strerror(errno)) }
        var offset = 0
        while failure == nil, offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 { failure = String(cString: strerror(errno)) } else { offset += written }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw PKIError.cannotWrite(path: path, reason: failure)
        }
    }
}
