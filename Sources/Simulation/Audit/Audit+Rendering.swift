import Foundation
import PKI

extension Audit {
    /// The report for a terminal or a CI log: per host, per client, each attack's verdict and deciding step,
    /// then the warnings. Text from the audited files is escaped.
    public var text: String {
        var lines: [String] = []
        for report in hosts {
            let pattern = report.host.pattern.map { " (standing for \($0))" } ?? ""
            lines.append("\(report.host.name)\(pattern), named by \(report.host.sources.joined(separator: ", "))")
            lines += report.shape.map { "  world: \($0)" }
            for pin in report.pins {
                lines.append("  pin \(pin.source): sha256/\(pin.hash) -> \(pin.placement)")
            }
            for client in report.clients {
                let through = client.attacks.filter(\.getsThrough)
                lines.append(
                    "  \(client.client): "
                        + (through.isEmpty ? "no attack gets through" : "\(through.count) attack\(through.count == 1 ? "" : "s") GET THROUGH"))
                for attack in client.attacks {
                    let mark =
                        attack.column == .none
                        ? "real server"
                        : attack.column == .stolenKey ? "not counted" : attack.getsThrough ? "GETS THROUGH" : attack.trusted ? "read nothing" : "stopped"
                    lines.append(
                        "    \(attack.column.rawValue.padding(toLength: 17, withPad: " ", startingAt: 0)) \(mark.padding(toLength: 12, withPad: " ", startingAt: 0)) \(attack.verdict)"
                    )
                }
            }
        }
        lines.append("")
        lines.append(
            "stolenKey is shown but not counted: with the server's own key an attacker is the server, and no client-side check tells them apart.")
        if warnings.isEmpty {
            lines.append("No warnings.")
        } else {
            lines.append("Warnings:")
            lines += warnings.map { "  [\($0.kind.rawValue)] \($0.message)" }
        }
        lines.append(attackGotThrough ? "Result: an attack gets through (exit 1)." : "Result: no attack gets through (exit 0).")
        return lines.map { TerminalText.escaped($0) }.joined(separator: "\n")
    }

    /// The report as JSON (shape in README.md's audit section).
    public var json: String {
        struct AttackJSON: Encodable {
            let attack: String, trusted: Bool, getsThrough: Bool, attackerSawPlaintext: Bool, decidingCheck: Nullable<String>
        }
        struct ClientJSON: Encodable { let client: String, attacks: [AttackJSON] }
        struct PinJSON: Encodable { let source: String, pin: String, pins: Nullable<String>, assumed: Bool }
        struct HostJSON: Encodable {
            let host: String, pattern: Nullable<String>, sources: [String], world: [String], pins: [PinJSON], clients: [ClientJSON]
        }
        struct WarningJSON: Encodable { let kind: String, message: String }
        struct Document: Encodable { let hosts: [HostJSON], warnings: [WarningJSON], attackGotThrough: Bool }
        let document = Document(
            hosts: hosts.map { report in
                HostJSON(
                    host: report.host.name, pattern: Nullable(report.host.pattern), sources: report.host.sources, world: report.shape,
                    pins: report.pins.map { PinJSON(source: $0.source, pin: "sha256/" + $0.hash, pins: Nullable($0.worldID), assumed: $0.assumed) },
                    clients: report.clients.map { client in
                        ClientJSON(
                            client: client.client,
                            attacks: client.attacks.map {
                                AttackJSON(
                                    attack: $0.column.rawValue, trusted: $0.trusted, getsThrough: $0.getsThrough, attackerSawPlaintext: $0.attackerSawPlaintext,
                                    decidingCheck: Nullable($0.decidingCheck?.rawValue))
                            })
                    })
            },
            warnings: warnings.map { WarningJSON(kind: $0.kind.rawValue, message: $0.message) }, attackGotThrough: attackGotThrough)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return TerminalText.escapedJSON(String(decoding: try! encoder.encode(document), as: UTF8.self))  // strings and booleans: cannot fail
    }
}

extension Audit.AttackVerdict {
    /// "REJECTED at pinnedPublicKeyMatch", "ACCEPTED at chainTrust", or why there was no verdict.
    public var verdict: String { result.verdict(noVerdict: "the handshake ended before the client judged a chain") }
}

extension AuditPin {
    /// Where the pin lands in the generated world, in words.
    var placement: String {
        switch worldID {
        case nil: "matches no certificate (a backup pin)"
        case let id? where id.hasPrefix("backup-"): "matches no certificate the server sends (a backup pin, '\(id)')"
        case let id?: "the generated \(id)'s key" + (assumed ? " (assumed: no --chain)" : "")
        }
    }
}
