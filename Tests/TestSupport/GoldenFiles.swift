import Foundation
import Testing

/// Text checked against files recorded earlier, so any change to what a user reads shows up as a diff.
///
/// Re-record after an intended change with `MITMSIM_RECORD_GOLDEN=1 swift test`.
public struct GoldenFiles: Sendable {
    /// The directory the golden files live in.
    public let directory: URL

    /// The golden files in `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The `Golden` directory beside the test file that calls this.
    public init(beside filePath: String = #filePath) {
        self.init(directory: URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Golden"))
    }

    /// Records an issue, listing the lines that differ, unless `text` equals the golden file `name`.txt;
    /// with `MITMSIM_RECORD_GOLDEN=1` writes `text` as the new golden file instead.
    public func expect(_ text: String, matches name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = directory.appendingPathComponent("\(name).txt")
        if ProcessInfo.processInfo.environment["MITMSIM_RECORD_GOLDEN"] == "1" {
            try text.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let recorded = try #require(
            try? String(contentsOf: file, encoding: .utf8),
            "no golden file \(file.path): record it with MITMSIM_RECORD_GOLDEN=1 swift test", sourceLocation: sourceLocation)
        #expect(text == recorded, "\(Self.diff(recorded, text))", sourceLocation: sourceLocation)
    }

    /// The lines that differ, marked - (recorded) and + (now), with their line numbers.
    public static func diff(_ recorded: String, _ now: String) -> String {
        let old = recorded.components(separatedBy: "\n")
        let new = now.components(separatedBy: "\n")
        return (0..<max(old.count, new.count)).compactMap { index -> String? in
            let before = index < old.count ? old[index] : nil
            let after = index < new.count ? new[index] : nil
            guard before != after else { return nil }
            return [before.map { "-\(index + 1): \($0)" }, after.map { "+\(index + 1): \($0)" }].compactMap { $0 }.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
