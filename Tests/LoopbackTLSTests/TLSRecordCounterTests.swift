import Testing

@testable import LoopbackTLS

/// `TLSRecordCounter` counts whole records however the stream was cut into reads.
struct TLSRecordCounterTests {
    static func record(_ type: UInt8, length: Int) -> [UInt8] {
        [type, 3, 3, UInt8(length >> 8), UInt8(length & 0xFF)] + [UInt8](repeating: 0xAB, count: length)
    }

    static let stream = record(22, length: 300) + record(20, length: 1) + record(23, length: 0) + record(23, length: 70)

    @Test func recordsInOneReadAreAllCounted() {
        var counter = TLSRecordCounter()
        counter.feed(Self.stream)
        #expect(counter.count == 4)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 64, 301])
    func theCountDoesNotDependOnHowTheStreamWasCut(chunk: Int) {
        var counter = TLSRecordCounter()
        for start in stride(from: 0, to: Self.stream.count, by: chunk) {
            counter.feed(Array(Self.stream[start..<min(start + chunk, Self.stream.count)]))
        }
        #expect(counter.count == 4)
    }

    @Test func aRecordIsCountedOnlyOnceItsLastByteArrives() {
        var counter = TLSRecordCounter()
        let record = Self.record(23, length: 10)
        counter.feed(Array(record.prefix(5)))
        #expect(counter.count == 0, "a header alone")
        counter.feed(Array(record.dropFirst(5).dropLast()))
        #expect(counter.count == 0, "one byte short")
        counter.feed([record.last ?? 0])
        #expect(counter.count == 1)
    }

    @Test func aTruncatedStreamCountsOnlyWholeRecordsAndEmptyReadsChangeNothing() {
        var counter = TLSRecordCounter()
        counter.feed([])
        counter.feed(Array(Self.stream.dropLast(1)))
        counter.feed([])
        #expect(counter.count == 3)
    }
}
