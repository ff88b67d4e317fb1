internal import COpenSSL

/// Small helpers shared by every file that calls OpenSSL.
package enum OpenSSL {
    /// Runs `body`, an OpenSSL operation, with this thread's error queue to itself, so one call's leftovers
    /// never become another's message and no call leaves its own behind.
    ///
    /// A mark alone cannot separate them on OpenSSL 3.0: `ERR_get_error` reads the oldest error first and
    /// cannot stop at a mark (`ERR_count_to_mark` came in 3.2). So errors already queued are set aside,
    /// `body` runs on an empty queue (its `drainErrors()` and `SSL_get_error` see only its own), whatever
    /// it leaves is cleared (on a queue that held only its errors, that touches nothing else), and the
    /// earlier errors are put back as they were. Scopes nest (a verify callback inside a handshake). Marks
    /// set below the scope are not kept: nothing in mitmsim sets one.
    package static func isolatingErrors<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let earlier = ERR_peek_error() == 0 ? [] : takeQueue()
        defer {
            ERR_clear_error()
            for error in earlier { COpenSSL_ERR_restore(error.code, error.file, error.line, error.function, error.data) }
        }
        return try body()
    }

    /// One queued error, with what `COpenSSL_ERR_restore` needs to queue it again.
    private struct QueuedError {
        let code: UInt
        // OpenSSL 3.0 keeps its own copies of the file and function names (ERR_set_debug strdups them) and
        // frees them with the entry, so they are copied, as the data is.
        let file: String?
        let line: Int32
        let function: String?
        let data: String?
    }

    private static func takeQueue() -> [QueuedError] {
        var taken: [QueuedError] = []
        while true {
            var file: UnsafePointer<CChar>? = nil
            var function: UnsafePointer<CChar>? = nil
            var data: UnsafePointer<CChar>? = nil
            var line: Int32 = 0
            var flags: Int32 = 0
            let code = ERR_get_error_all(&file, &line, &function, &data, &flags)
            guard code != 0 else { return taken }
            // The data string is OpenSSL's and freed with the entry: copy it now.
            taken.append(
                QueuedError(
                    code: code, file: file.map { String(cString: $0) }, line: line, function: function.map { String(cString: $0) },
                    data: data.map { String(cString: $0) }))
        }
    }

    /// OpenSSL's text for a verification error code (`X509_verify_cert_error_string`).
    package static func verifyErrorText(_ code: Int32) -> String {
        String(cString: X509_verify_cert_error_string(Int(code)))
    }

    /// Drains this thread's OpenSSL error queue into readable lines (the queue is per thread); inside
    /// `isolatingErrors`, these are the lines of that operation only.
    package static func drainErrors() -> [String] {
        var lines: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            lines.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return lines
    }

    /// The error to throw when `operation` returned failure: carries the drained queue.
    static func failure(_ operation: String) -> PKIError {
        .openSSL(operation: operation, details: drainErrors())
    }

    /// Throws unless an OpenSSL status code signals success (`> 0`).
    static func check(_ status: Int32, _ operation: String) throws {
        guard status > 0 else { throw failure(operation) }
    }

    /// DER-encodes with an `i2d_*` function, letting OpenSSL allocate the buffer.
    static func encode(_ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int32, _ operation: String) throws -> [UInt8] {
        try isolatingErrors { () throws(PKIError) -> [UInt8] in
            var buffer: UnsafeMutablePointer<UInt8>? = nil
            let length = i2d(&buffer)
            guard length > 0, let buffer else { throw failure(operation) }
            defer { COpenSSL_OPENSSL_free(buffer) }
            return Array(UnsafeBufferPointer(start: buffer, count: Int(length)))
        }
    }

    package static func sha256(_ bytes: [UInt8]) -> [UInt8] { digest(bytes, EVP_sha256(), "SHA-256", length: 32) }

    /// SHA-1, for the legacy pins that still name it (OkHttp's `sha1/`).
    package static func sha1(_ bytes: [UInt8]) -> [UInt8] { digest(bytes, EVP_sha1(), "SHA-1", length: 20) }

    private static func digest(_ bytes: [UInt8], _ type: OpaquePointer?, _ name: String, length expected: UInt32) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = isolatingErrors { EVP_Digest(bytes, bytes.count, &digest, &length, type, nil) }
        // A digest of a buffer in memory can only fail when OpenSSL cannot allocate its context.
        precondition(status == 1 && length == expected, "EVP_Digest(\(name)) failed: out of memory")
        return Array(digest.prefix(Int(length)))
    }

    /// Reads everything written into a memory BIO.
    static func contents(of bio: OpaquePointer) -> [UInt8] {
        var pointer: UnsafeMutablePointer<CChar>? = nil
        let length = COpenSSL_BIO_get_mem_data(bio, &pointer)
        guard length > 0, let pointer else { return [] }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// Runs `body` with a read-only memory BIO over `bytes`.
    static func withReadBIO<T>(_ bytes: [UInt8], _ body: (OpaquePointer) throws -> T) throws -> T {
        try isolatingErrors {
            try bytes.withUnsafeBytes { raw in
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { throw failure("BIO_new_mem_buf") }
                defer { BIO_free(bio) }
                return try body(bio)
            }
        }
    }

    /// Runs `body` with a growable memory BIO and returns what it wrote.
    static func writingToBIO(_ operation: String, _ body: (OpaquePointer) -> Int32) throws -> [UInt8] {
        try isolatingErrors {
            guard let bio = BIO_new(BIO_s_mem()) else { throw failure("BIO_new") }
            defer { BIO_free(bio) }
            try check(body(bio), operation)
            return contents(of: bio)
        }
    }
}

extension Array where Element == UInt8 {
    /// Lowercase hex without separators, the form used in JSON output.
    package var hexString: String { map { byte in String(byte, radix: 16).leftPadded(to: 2) }.joined() }
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
