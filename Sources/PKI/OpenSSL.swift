internal import COpenSSL

/// Small helpers shared by every file that calls OpenSSL.
package enum OpenSSL {
    /// Drains this thread's OpenSSL error queue into readable lines (the queue is per thread).
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
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d(&buffer)
        guard length > 0, let buffer else { throw failure(operation) }
        defer { COpenSSL_OPENSSL_free(buffer) }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(length)))
    }

    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha256(), nil)
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
        try bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { throw failure("BIO_new_mem_buf") }
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }

    /// Runs `body` with a growable memory BIO and returns what it wrote.
    static func writingToBIO(_ operation: String, _ body: (OpaquePointer) -> Int32) throws -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw failure("BIO_new") }
        defer { BIO_free(bio) }
        try check(body(bio), operation)
        return contents(of: bio)
    }
}

extension Array where Element == UInt8 {
    /// Lowercase hex without separators, the form used in JSON output.
    package var hexString: String { map { byte in String(byte, radix: 16).leftPadded(to: 2) }.joined() }
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
