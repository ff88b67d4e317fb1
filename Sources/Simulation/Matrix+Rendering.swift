import Foundation
import PKI
import Policies

extension Matrix {
    /// How many policies accept each column's attack.
    public func acceptedCount(_ column: Column) -> Int {
        cells.filter { $0.column == column && $0.trusted }.count
    }

    /// A row's name in the text table: the settings of a release, or for the versions matrix the release.
    public func label(of policy: Policy) -> String {
        rows == .versions ? policy.versionLabel : policy.label
    }

    /// A truth table: one row per policy, one column per attack, and "accepted by N of M" under each.
    public var text: String {
        let width = max(12, columns.map(\.rawValue.count).max() ?? 0)
        let labelWidth = max(38, (policies.map { label(of: $0).count }.max() ?? 0) + 2)
        func pad(_ text: String) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        func padLabel(_ text: String) -> String { text.padding(toLength: labelWidth, withPad: " ", startingAt: 0) }
        var lines = [TerminalText.escaped(title)] + legend + [""]
        lines.append(padLabel(rows == .versions ? "library" : "policy") + columns.map { pad($0.rawValue) }.joined(separator: " "))
        for policy in policies {
            lines.append(padLabel(label(of: policy)) + columns.map { pad(cell(policy, $0).map(\.symbol) ?? "?") }.joined(separator: " "))
        }
        lines.append(padLabel("accepted by") + columns.map { pad("\(acceptedCount($0)) of \(policies.count)") }.joined(separator: " "))
        return lines.joined(separator: "\n")
    }

    /// The text table's first line: whose policies meet the attacks, in which world.
    private var title: String {
        switch rows {
        case .settings(.v4): "Policy × attack for the world of '\(scenarioID)'."
        case .settings(let version): "Policy × attack for the world of '\(scenarioID)', with \(version.rawValue)'s AFSecurityPolicy."
        case .versions: "Every AFNetworking release's default policy × attack for the world of '\(scenarioID)'."
        }
    }

    /// The policy's properties the CSV and Markdown tables show: those the rows' releases have.
    private var fields: [PolicyField] {
        switch rows {
        case .versions: PolicyField.allCases
        case .settings(let version):
            [.pinningMode, .allowInvalidCertificates] + (version.hasValidatesDomainName ? [.validatesDomainName] : [])
                + (version.hasValidatesCertificateChain ? [.validatesCertificateChain] : []) + [.pinned]
        }
    }

    /// The policy's columns, then one per attack; an empty field where a row's release lacks the property.
    public var csv: String {
        ([(fields.map(\.rawValue) + columns.map(\.rawValue)).joined(separator: ",")]
            + policies.map { policy in
                (fields.map { $0.value(of: policy)?.csv ?? "" } + columns.map { cell(policy, $0).map(\.symbol) ?? "" }).joined(separator: ",")
            }).joined(separator: "\n")
    }

    /// Booleans spelled YES and NO as Objective-C does, and "-" where a row's release lacks the property.
    public var markdown: String {
        var lines = [
            "| " + (fields.map(\.markdownHeader) + columns.map(\.rawValue)).joined(separator: " | ") + " |",
            "|" + String(repeating: "---|", count: fields.count) + columns.map { _ in "---|" }.joined(),
        ]
        for policy in policies {
            lines.append(
                "| "
                    + (fields.map { $0.value(of: policy)?.markdown ?? "-" } + columns.map { cell(policy, $0).map(\.symbol) ?? "" })
                    .joined(separator: " | ") + " |")
        }
        lines.append(
            "| accepted by |" + String(repeating: " |", count: fields.count - 1) + " "
                + columns.map { "\(acceptedCount($0)) of \(policies.count)" }.joined(separator: " | ") + " |")
        return lines.joined(separator: "\n")
    }

    /// `{"cells": [{"policy": {...}, "attack", "trusted", "attackerSawPlaintext", "serverReceivedRequest", "decidingCheck"}]}`;
    /// `decidingCheck` is null when the client never judged a chain, and a policy's `validatesDomainName` or
    /// `validatesCertificateChain` is null when its `library` has no such property.
    public var json: String {
        struct PolicyJSON: Encodable {
            let library: String, pinningMode: String, allowInvalidCertificates: Bool
            let validatesDomainName: Nullable<Bool>, validatesCertificateChain: Nullable<Bool>
            let pinned: String
        }
        struct CellJSON: Encodable {
            let policy: PolicyJSON, attack: String, trusted: Bool, attackerSawPlaintext: Bool, serverReceivedRequest: Bool
            let decidingCheck: Nullable<String>
        }
        struct Document: Encodable { let scenario: String, cells: [CellJSON] }
        let document = Document(
            scenario: scenarioID,
            cells: cells.map { cell in
                CellJSON(
                    policy: PolicyJSON(
                        library: cell.policy.version.rawValue, pinningMode: cell.policy.pinningMode.rawValue,
                        allowInvalidCertificates: cell.policy.allowInvalidCertificates,
                        validatesDomainName: Nullable(PolicyField.validatesDomainName.value(of: cell.policy)?.flag),
                        validatesCertificateChain: Nullable(PolicyField.validatesCertificateChain.value(of: cell.policy)?.flag),
                        pinned: cell.policy.pinned.rawValue),
                    attack: cell.column.rawValue, trusted: cell.trusted, attackerSawPlaintext: cell.attackerSawPlaintext,
                    serverReceivedRequest: cell.serverReceivedRequest, decidingCheck: Nullable(cell.decidingCheck?.rawValue))
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return TerminalText.escapedJSON(String(decoding: try! encoder.encode(document), as: UTF8.self))  // strings and booleans: cannot fail
    }
}

/// A property of a matrix row's policy, named as the CSV header (and `AFSecurityPolicy`) names it.
private enum PolicyField: String, CaseIterable {
    case library, pinningMode, allowInvalidCertificates, validatesDomainName, validatesCertificateChain, pinned

    /// A property's value: a name, or a flag.
    enum Value {
        case name(String)
        case flag(Bool)

        var flag: Bool? { if case .flag(let value) = self { value } else { nil } }
        var csv: String {
            switch self {
            case .name(let name): name
            case .flag(let value): String(value)
            }
        }
        var markdown: String {
            switch self {
            case .name(let name): name
            case .flag(let value): value ? "YES" : "NO"
            }
        }
    }

    var markdownHeader: String {
        switch self {
        case .library: "library"
        case .pinningMode: "pinning mode"
        case .allowInvalidCertificates: "allowInvalid"
        case .validatesDomainName: "validatesDomain"
        case .validatesCertificateChain: "validatesChain"
        case .pinned: "pinned"
        }
    }

    /// Nil when the row's release has no such property.
    func value(of policy: Matrix.Policy) -> Value? {
        switch self {
        case .library: .name(policy.version.rawValue)
        case .pinningMode: .name(policy.pinningMode.rawValue)
        case .allowInvalidCertificates: .flag(policy.allowInvalidCertificates)
        case .validatesDomainName: policy.version.hasValidatesDomainName ? .flag(policy.validatesDomainName) : nil
        case .validatesCertificateChain: policy.version.hasValidatesCertificateChain ? .flag(policy.validatesCertificateChain) : nil
        case .pinned: .name(policy.pinned.rawValue)
        }
    }
}
