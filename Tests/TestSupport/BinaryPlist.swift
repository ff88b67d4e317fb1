import Foundation

/// Binary property lists written byte by byte, as a hostile file is: objects and references chosen by the test.
public enum BinaryPlist {
    /// `value` as `bytes` big-endian bytes.
    public static func big(_ value: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }

    /// An ASCII string object: 0x5F, then the length as a one-byte integer (0x10), then the bytes.
    public static func string(_ text: String) -> [UInt8] { [0x5F, 0x10, UInt8(text.utf8.count)] + Array(text.utf8) }

    /// `bplist00`, the encoded `objects`, their offset table (offsets of `offsetSize` bytes) and the trailer, whose
    /// references are `referenceSize` bytes and whose top object is `top`.
    public static func file(_ objects: [[UInt8]], top: Int, offsetSize: Int, referenceSize: Int) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { bytes += big(offset, offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)] + big(objects.count, 8) + big(top, 8) + big(table, 8)
        return Data(bytes)
    }
}
