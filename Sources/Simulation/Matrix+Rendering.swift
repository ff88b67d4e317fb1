import Foundation

extension Matrix {
    /// How many policies accept each column's attack.
    public func acceptedCount(_ column: Column) -> Int {
        cells.filter { $0.column == column && $0.trusted }.count
    }

    /// A truth table: one row per policy, one column per attack, and "accepted by N of M" under each.
    public var text: String {
        let width = max(12, columns.map(\.rawValue.count).max() ?? 0)
        func pad(_ text: String) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        var lines = [TerminalText.escaped("Policy × attack for the world of '\(scenarioID)'.")] + legend + [""]
        lines.append("policy".padding(toLength: 38, withPad: " ", startingAt: 0) + columns.map { pad($0.rawValue) }.joined(separator: " "))
        for policy in policies {
            lines.append(
                policy.label.padding(toLength: 38, withPad: " ", startingAt: 0)
                    + columns.map { pad(cell(policy, $0).map(\.symbol) ?? "?") }.joined(separator: " "))
        }
        lines.append(
            "accepted by".padding(toLength: 38, withPad: " ", startingAt: 0)
                + columns.map { pad("\(acceptedCount($0)) of \(policies.count)") }.joined(separator: " "))
        return lines.joined(separator: "\n")
    }

    public var csv: String {
        (["pinningMode,allowInvalidCertificates,validatesDomainName,pinned," + columns.map(\.rawValue).joined(separator: ",")]
            + policies.map { policy in
                "\(policy.pinningMode),\(policy.allowInvalidCertificates),\(policy.validatesDomainName),\(policy.pinned.rawValue),"
                    + columns.map { cell(policy, $0).map(\.symbol) ?? "" }.joined(separator: ",")
            }).joined(separator: "\n")
    }

    public var markdown: String {
        var lines = [
            "| pinning mode | allowInvalid | validatesDomain | pinned | " + columns.map(\.rawValue).joined(separator: " | ") + " |",
            "|---|---|---|---|" + columns.map { _ in "---|" }.joined(),
        ]
        for policy in policies {
            lines.append(
                "| \(policy.pinningMode) | \(policy.allowInvalidCertificates ? "YES" : "NO") | \(policy.validatesDomainName ? "YES" : "NO") | "
                    + "\(policy.pinned.rawValue) | " + columns.map { cell(policy, $0).map(\.symbol) ?? "" }.joined(separator: " | ") + " |")
        }
        lines.append("| accepted by | | | | " + columns.map { "\(acceptedCount($0)) of \(policies.count)" }.joined(separator: " | ") + " |")
        return lines.joined(separator: "\n")
    }

    /// `{"cells": [{"policy": {...}, "attack", "trusted", "attackerSawPlaintext", "serverReceivedRequest", "decidingCheck"}]}`;
    /// `decidingCheck` is null when the client never judged a chain.
    public var json: String {
        struct PolicyJSON: Encodable { let pinningMode: String, allowInvalidCertificates: Bool, validatesDomainName: Bool, pinned: String }
        struct CellJSON: Encodable {
            let policy: PolicyJSON, attack: String, trusted: Bool, attackerSawPlaintext: Bool, serverReceivedRequest: Bool
            let decidingCheck: String?

            enum CodingKeys: String, CodingKey { case policy, attack, trusted, attackerSawPlaintext, serverReceivedRequest, decidingCheck }

            // Written by hand so a missing deciding check is an explicit null, not an absent key.
            func encode(to encoder: Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(policy, forKey: .policy)
                try container.encode(attack, forKey: .attack)
                try container.encode(trusted, forKey: .trusted)
                try container.encode(attackerSawPlaintext, forKey: .attackerSawPlaintext)
                try container.encode(serverReceivedRequest, forKey: .serverReceivedRequest)
                try container.encode(decidingCheck, forKey: .decidingCheck)
            }
        }
        struct Document: Encodable { let scenario: String, cells: [CellJSON] }
        let document = Document(
            scenario: scenarioID,
            cells: cells.map { cell in
                CellJSON(
                    policy: PolicyJSON(
                        pinningMode: cell.policy.pinningMode.rawValue, allowInvalidCertificates: cell.policy.allowInvalidCertificates,
                        validatesDomainName: cell.policy.validatesDomainName, pinned: cell.policy.pinned.rawValue),
                    attack: cell.column.rawValue, trusted: cell.trusted, attackerSawPlaintext: cell.attackerSawPlaintext,
                    serverReceivedRequest: cell.serverReceivedRequest, decidingCheck: cell.decidingCheck?.rawValue)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return TerminalText.escapedJSON(String(decoding: try! encoder.encode(document), as: UTF8.self))  // strings and booleans: cannot fail
    }
}
