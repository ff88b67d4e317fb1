import Foundation
import Simulation
import TestSupport
import Testing

/// The one escaping scheme, and the engine's renderers that use it: a run's text, Markdown and JSON, and the
/// matrix, for a lesson whose every kind of text carries control characters.
struct EscapingTests {
    @Test func eachControlCharacterHasOneVisibleEscapeAndNothingElseChanges() {
        let ordinary = "bank.test → 'forged bank-leaf' · Zürich 東京 🔒 | `code` **bold**"
        #expect(TerminalText.escaped(ordinary + "\u{1B}") == ordinary + #"\e"#)
        #expect(TerminalText.escaped(HostileText.title) == HostileText.shownTitle)
        #expect(TerminalText.escaped("a\tb\r\nc") == #"a\tb\r\nc"#)
        #expect(TerminalText.escaped("\u{0}\u{1}\u{7F}") == #"\u{00}\u{01}\u{7F}"#, "other C0 controls and DEL by code point")
        #expect(TerminalText.escaped("\u{9B}2J\u{85}") == #"\u{9B}2J\u{85}"#, "C1 controls, which some terminals obey as ESC [ and a line feed")
        #expect(TerminalText.escaped("abc\u{202E}fed\u{2066}\u{2028}") == #"abc\u{202E}fed\u{2066}\u{2028}"#, "what reorders or breaks a line")
    }

    @Test func aBackslashIsDoubledSoEveryEscapeReadsBackOneWay() {
        #expect(TerminalText.escaped(#"C:\new"#) == #"C:\\new"#)
        #expect(TerminalText.escaped(#"\e"#) != TerminalText.escaped("\u{1B}"), "the text backslash-e and ESC look different")
    }

    @Test func keepingLineBreaksKeepsOnlyTheLineFeed() {
        #expect(TerminalText.escaped("one\n\n\u{1B}[2Jtwo\r\n\tthree", keepingLineBreaks: true) == "one\n\n\\e[2Jtwo\\r\n\\tthree")
    }

    @Test func jsonKeepsItsMeaningAndLosesEveryRawControl() throws {
        let value = "EVIL\u{1B}]0;pwned\u{07}\u{7F}\u{9B}2J\u{202E}\u{2028}\\ \"quoted\""
        let encoded = String(decoding: try JSONEncoder().encode([value]), as: UTF8.self)
        let escaped = TerminalText.escapedJSON(encoded)
        #expect(HostileText.steering(escaped).isEmpty, "\(escaped.debugDescription)")
        #expect(try JSONDecoder().decode([String].self, from: Data(escaped.utf8)) == [value])
    }

    static func withHostileRun(_ body: (RunReport) throws -> Void) throws {
        let directory = try HostileText.writeLesson()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let report = try ScenarioRunner.runWithTries(try ScenarioLoader.load("\(directory)/\(HostileText.lessonID).yaml"))
        #expect(report.expectationsMet, "\(report.checks)")
        try body(report)
    }

    @Test func aHostileRunAsTextShowsEveryControlCharacterEscapedAndTheLessonsParagraphs() throws {
        try Self.withHostileRun { report in
            let text = report.text
            #expect(HostileText.steering(text).isEmpty, "\(text.debugDescription)")
            let lines = text.components(separatedBy: "\n")
            #expect(lines.first == #"99-hostile\e[2J: "# + HostileText.shownTitle)
            #expect(lines.contains(#"group: Group\e[31m red\u{9B}2J"#))
            #expect(text.contains(#"Alice installed a profile. \e]0;pwned\a Her app keeps the default policy."# + "\n\nWill the app accept"))
            #expect(text.contains(#"plaintext from the client: POST /login HTTP/1.1 | username=alice&password=hunter2\e[8m"#), "\(text)")
            #expect(text.contains(#"The attacker read the password 'hunter2\e[8m'."#))
            #expect(text.contains(#"installed without full trust): REJECTED. Watch\e[2J the trace."#), "\(text)")
        }
    }

    @Test func aHostileRunAsMarkdownEscapesEachFieldBeforeTheTableDoes() throws {
        try Self.withHostileRun { report in
            let markdown = report.markdown
            #expect(HostileText.steering(markdown).isEmpty, "\(markdown.debugDescription)")
            let lines = markdown.components(separatedBy: "\n")
            #expect(lines.first == "# " + HostileText.shownTitle)
            #expect(lines.contains(#"*Group\e[31m red\u{9B}2J*"#))
            #expect(lines.contains(#"Lesson `99-hostile\e[2J`."#))
            #expect(lines.contains { $0.hasPrefix("| ") && $0.contains(#"POST /login HTTP/1.1 \| username=alice&password=hunter2\e[8m"#) })
        }
    }

    @Test func aHostileRunAsJSONReadsBackByteForByte() throws {
        try Self.withHostileRun { report in
            let json = RunReport.json([report])
            #expect(HostileText.steering(json).isEmpty, "\(json.debugDescription)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(object["title"] as? String == HostileText.title)
            #expect(object["scenario"] as? String == HostileText.lessonID)
        }
    }

    @Test func theMatrixOfAHostileLessonNamesItEscaped() throws {
        let directory = try HostileText.writeLesson()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let matrix = try Matrix(scenario: try ScenarioLoader.load("\(directory)/\(HostileText.lessonID).yaml"), columns: [.none])
        #expect(HostileText.steering(matrix.text).isEmpty, "\(matrix.text.debugDescription)")
        #expect(matrix.text.hasPrefix(#"Policy × attack for the world of '99-hostile\e[2J'."#))
        for other in [matrix.json, matrix.csv, matrix.markdown] { #expect(HostileText.steering(other).isEmpty) }
    }
}
