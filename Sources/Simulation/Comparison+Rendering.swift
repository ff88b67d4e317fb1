import Foundation
import PKI
import Policies

extension Comparison {
    /// The lines above the table: the lesson, its attack, and how every client was set.
    public var heading: [String] {
        let android = androidRows.map(\.rawValue).joined(separator: ", ")
        return [
            "\(scenario.id): \(scenario.title)",
            "The same attack against every client: \(scenario.attacker.summary).",
            "Each client has the lesson's pins (\(scenario.clientSettingsContext.pins)) in its own terms; "
                + "the AFNetworking rows keep the lesson's other settings"
                + (scenario.client.ats.pinnedDomains.isEmpty ? "." : ", and the Alamofire and TrustKit rows its Info.plist's NSPinnedDomains."),
        ]
            + (targetSdkVersion.flatMap { sdk in android.isEmpty ? nil : ["The Android rows (\(android)) run as an app with targetSdkVersion \(sdk)."] } ?? [])
    }

    /// The table's header, one cell per column: client, verdict, deciding step, what the attacker read.
    public static let columns = ["client", "verdict", "deciding step", "attacker read"]

    /// A row's cells, as the text, Markdown and console tables show them ("-" for no deciding step).
    public static func cells(_ row: Row) -> [String] {
        [
            row.client.rawValue, row.report.verdictWord, row.decidingCheck?.rawValue ?? "-",
            row.report.attackerView.loot(secret: row.report.scenario.request.secret),
        ]
    }

    /// The heading, then a table padded into columns. Every line is escaped: ids, titles and secrets come from the file.
    public var text: String {
        let table = [Self.columns] + rows.map(Self.cells)
        let widths = Self.columns.indices.dropLast().map { column in table.map { TerminalText.escaped($0[column]).count }.max() ?? 0 }
        let lines = table.map { cells in
            cells.enumerated().map { index, cell in
                let escaped = TerminalText.escaped(cell)
                return index < widths.count ? escaped.padding(toLength: widths[index] + 2, withPad: " ", startingAt: 0) : escaped
            }.joined()
        }
        return (heading.map { TerminalText.escaped($0) } + [""] + lines).joined(separator: "\n") + "\n"
    }

    /// A handout: the heading as paragraphs, then the table, each field escaped before the table's own `\|`.
    public var markdown: String {
        func field(_ text: String) -> String { TerminalText.escaped(text).replacingOccurrences(of: "|", with: "\\|") }
        let (title, rest) = (heading[0], heading.dropFirst())
        var lines = ["# \(field(title))", ""] + rest.map(field) + [""]
        lines.append("| " + Self.columns.joined(separator: " | ") + " |")
        lines.append("|" + String(repeating: "---|", count: Self.columns.count))
        lines += rows.map { "| " + Self.cells($0).map(field).joined(separator: " | ") + " |" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `{"scenario", "rows": [{"client", "trusted", "decidingCheck", "attackerSawPlaintext"}]}`; `decidingCheck`
    /// is null when no chain was judged.
    public var json: String {
        struct RowJSON: Encodable {
            let client: String, trusted: Bool, decidingCheck: Nullable<String>, attackerSawPlaintext: Bool
        }
        struct Document: Encodable { let scenario: String, rows: [RowJSON] }
        let document = Document(
            scenario: scenario.id,
            rows: rows.map {
                RowJSON(
                    client: $0.client.rawValue, trusted: $0.trusted, decidingCheck: Nullable($0.decidingCheck?.rawValue),
                    attackerSawPlaintext: $0.attackerSawPlaintext)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return TerminalText.escapedJSON(String(decoding: try! encoder.encode(document), as: UTF8.self))  // strings and booleans: cannot fail
    }
}
