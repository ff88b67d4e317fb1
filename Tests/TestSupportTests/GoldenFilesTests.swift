import Foundation
import TestSupport
import Testing

/// The golden-file helper every snapshot test uses: what it reports when text drifts from its recording.
struct GoldenFilesTests {
    @Test func aDiffNumbersOnlyTheChangedLinesMarkingRecordedAndNow() {
        #expect(GoldenFiles.diff("a\nb\nc", "a\nB\nc") == "-2: b\n+2: B")
    }

    @Test func aDiffShowsLinesThatAppearedOrDisappearedAtTheEnd() {
        #expect(GoldenFiles.diff("a", "a\nadded") == "+2: added")
        #expect(GoldenFiles.diff("a\ngone", "a") == "-2: gone")
    }

    @Test func equalTextHasNoDiff() {
        #expect(GoldenFiles.diff("same\ntext\n", "same\ntext\n").isEmpty)
    }

    @Test(.disabled(if: ProcessInfo.processInfo.environment["MITMSIM_RECORD_GOLDEN"] == "1", "recording never compares"))
    func textThatMatchesItsRecordingPassesAndTextThatDoesNotIsAnIssue() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "recorded\n".write(to: directory.appendingPathComponent("screen.txt"), atomically: true, encoding: .utf8)
        let golden = GoldenFiles(directory: directory)
        try golden.expect("recorded\n", matches: "screen")
        withKnownIssue { try golden.expect("changed\n", matches: "screen") }
        withKnownIssue { try golden.expect("anything", matches: "never-recorded") }
    }
}
