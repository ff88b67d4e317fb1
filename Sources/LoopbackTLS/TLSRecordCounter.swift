/// Counts whole TLS records in a byte stream, however it was cut into reads (5-byte header, then length).
struct TLSRecordCounter {
    private(set) var count = 0
    private var header: [UInt8] = []
    private var remaining = 0

    mutating func feed(_ bytes: [UInt8]) {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if remaining > 0 {
                let taken = min(remaining, bytes.endIndex - index)
                remaining -= taken
                index += taken
                if remaining == 0 { count += 1 }
                continue
            }
            header.append(bytes[index])
            index += 1
            if header.count == 5 {
                remaining = Int(header[3]) << 8 | Int(header[4])
                header = []
                if remaining == 0 { count += 1 }
            }
        }
    }
}
