import Console
import Foundation
import Testing

/// Every key sequence and verdict that `Docs/classroom.md` and `Docs/worksheet.md` state is marked with
/// `<!-- check: LESSON | KEYS | VERDICT | FACT… -->` (KEYS `-` for the lesson as written; a FACT is
/// `secret read`, `secret not read`, `bank received` or `bank not received`), and each mark is replayed
/// in the walkthrough: the docs cannot say what the console does not show.
struct DocumentedClaimTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Docs")
    static let pages = ["classroom.md", "worksheet.md"]

    struct Claim: CustomStringConvertible, Sendable {
        let page: String
        let lesson: String
        let keys: String
        let verdict: String
        let facts: [String]
        var description: String { "\(page): \(lesson) | \(keys) | \(verdict)" }
    }

    static func text(_ page: String) -> String { (try? String(contentsOf: docs.appendingPathComponent(page), encoding: .utf8)) ?? "" }

    static let claims: [Claim] = pages.flatMap { page in
        text(page).matches(of: #/<!-- check: (?<fields>[^>]*) -->/#).map { match in
            let fields = match.output.fields.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            return Claim(
                page: page, lesson: fields.first ?? "", keys: fields.count > 1 ? fields[1] : "", verdict: fields.count > 2 ? fields[2] : "",
                facts: Array(fields.dropFirst(3)))
        }
    }

    @Test func theLessonPlanAndTheWorksheetAnswersAreMarked() {
        #expect(Self.claims.filter { $0.page == "classroom.md" }.count >= 20)
    }

    @Test(arguments: claims)
    func eachMarkedClaimIsWhatTheWalkthroughShows(_ claim: Claim) throws {
        let state = claim.keys == "-" ? ConsoleRenderTests.walkthrough(claim.lesson) : LessonTryTests.after(claim.keys, in: claim.lesson)
        let report = try #require(state.report, "\(claim): no such lesson")
        #expect(report.verdict == claim.verdict, "\(claim)")
        for fact in claim.facts {
            switch fact {
            case "secret read", "secret not read": #expect(report.attackerView.readSecret == (fact == "secret read"), "\(claim): \(fact)")
            case "bank received", "bank not received": #expect(report.serverReceivedRequest == (fact == "bank received"), "\(claim): \(fact)")
            default: Issue.record("\(claim): unknown fact '\(fact)'")
            }
        }
    }

    /// The starts of `classroom.md`'s headings whose sections say what lessons show (the lab's sections
    /// speak of real clients instead); every section of the worksheet does.
    static let lessonSections = ["15–30 min", "30–38 min", "38–45 min", "Questions with answers", "Worksheet answers"]

    /// A renamed heading would drop its section from the check below without a word: each must be found.
    @Test(arguments: lessonSections)
    func eachSectionTheCheckReadsIsOnThePage(_ heading: String) {
        #expect(Self.text("classroom.md").components(separatedBy: "\n## ").contains { $0.hasPrefix(heading) }, "no heading starts with \(heading)")
    }

    /// The sections that say what lessons show, and the blocks in them (paragraphs and list items).
    static func blocks(_ page: String) -> [String] {
        let sections = text(page).components(separatedBy: "\n## ").filter { section in
            page == "worksheet.md" || lessonSections.contains { section.hasPrefix($0) }
        }
        return sections.flatMap { $0.components(separatedBy: "\n\n") }.flatMap { paragraph in
            paragraph.split(separator: /\n(?=\d+\. )/).map(String.init)
        }
    }

    @Test(arguments: pages)
    func noUnmarkedPassageSaysWhatALessonShows(_ page: String) {
        let lesson = /[Ll]essons? \d|\b\d\d-[a-z]/
        let outcome = /accepted|refused|rejected|ACCEPTED|REJECTED|passes|fails|FAILS|leaked|hunter2/
        for block in Self.blocks(page) where block.contains(lesson) && block.contains(outcome) {
            #expect(block.contains("<!-- check: "), "\(page): a claim no test checks: \(block.prefix(160))")
        }
    }
}
