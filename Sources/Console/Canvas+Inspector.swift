import Simulation

/// The certificate inspector: the chain shown to the client beside the real server's, as a page.
extension Canvas {
    mutating func inspector(_ state: ConsoleState) {
        reportPage(state, title: { _ in "certificates: shown to the client vs the real server's" }, footer: "≠ marks a field that differs   i or q back")
    }

    /// Each certificate's fields, the one shown to the client beside the real server's, each value wrapped in its half.
    static func inspectorRows(_ report: RunReport, width: Int) -> [PageRow] {
        let half = width / 2
        var result: [PageRow] = [[(1, line("shown to the client", .accent)), (half + 1, line("sent by the real server", .accent))]]
        for fields in report.certificateComparison {
            for field in fields {
                let mark = field.differs ? "≠ " : "  "
                let name = field.name.padding(toLength: 9, withPad: " ", startingAt: 0)
                let style: Style = field.differs ? .warning : .normal
                let shown = field.shown.map { wrap(name + $0, width: half - 3, hanging: 9) } ?? []
                let real = field.real.map { wrap(name + $0, width: half - 3, hanging: 9) } ?? []
                for index in 0..<max(shown.count, real.count) {
                    var row: PageRow = []
                    if index < shown.count { row += [(0, line(index == 0 ? mark : "", style)), (2, line(shown[index], style))] }
                    if index < real.count { row += [(half, line(index == 0 ? mark : "", style)), (half + 2, line(real[index], style))] }
                    result.append(row)
                }
            }
            result.append([])
        }
        return result
    }
}
