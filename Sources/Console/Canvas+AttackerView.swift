import Simulation

/// What the attacker read, as a page.
extension Canvas {
    mutating func attackerView(_ state: ConsoleState) {
        reportPage(state, title: { "what the attacker read: \(state.name($0.scenario))" }, footer: "x or q back")
    }

    /// What the attacker read: the summary, then the decrypted request (the secret marked) and response, or
    /// why the bytes stayed ciphertext; last, what the bank's CT monitor now sees when the forgery was logged.
    static func attackerRows(_ report: RunReport, width: Int) -> [PageRow] {
        let view = report.attackerView
        let secret = report.scenario.request.secret
        var result = rows(view.summary(secret: secret), view.readSecret ? .leaked : .accent, width: width) + [[]]
        if view.sawPlaintext {
            result += rows("Decrypted request from the client:", .accent, width: width)
            for requestLine in view.requestText.components(separatedBy: "\r\n") {
                var styled = line(requestLine, .normal)
                if !secret.isEmpty, let range = requestLine.range(of: secret) {
                    let start = requestLine.distance(from: requestLine.startIndex, to: range.lowerBound)
                    for index in start..<(start + secret.count) { styled[index].style = .leaked }
                }
                result += rows(styled, column: 2, width: width)
            }
            result += [[]] + rows("Decrypted response from the bank:", .accent, width: width)
            result += rows(view.responseText.components(separatedBy: "\r\n\r\n").last ?? "", .normal, column: 2, width: width)
        } else if view.connected {
            result += rows(view.ciphertextDetail, .normal, width: width)
        }
        if let monitor = report.transparencyMonitor { result += [[]] + rows(monitor, .accent, width: width) }
        return result
    }
}
