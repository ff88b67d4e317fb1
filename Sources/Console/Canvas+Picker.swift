import Simulation

/// The lesson list: lessons under their groups, a filter, and the selected lesson's summary.
extension Canvas {
    mutating func picker(_ state: ConsoleState) {
        header("lessons: choose one with ↑/↓ and Enter")
        let lessons = state.filtered
        let listRows = height - 6
        // The list as drawn, each group's name above its lessons (nil), so the window counts the names too
        // and the selected lesson is always on screen.
        var entries: [(index: Int?, group: String)] = []
        for (index, lesson) in lessons.enumerated() {
            if entries.last?.group != lesson.group { entries.append((nil, lesson.group)) }
            entries.append((index, lesson.group))
        }
        let selectedRow = entries.firstIndex { $0.index == state.selection } ?? 0
        let first = max(0, min(selectedRow - listRows / 2, entries.count - listRows))
        // In classroom mode the number alone: an id can state the outcome.
        let titleColumn = state.classroom ? 14 : 50
        for (row, entry) in zip(1..., entries.dropFirst(first).prefix(listRows)) {
            guard let index = entry.index else {
                screen.put(entry.group, row: row, column: 1, style: .accent)
                continue
            }
            let selected = index == state.selection
            if selected { screen.paint(row: row, column: 0, width: width, style: .selected) }
            screen.put(
                "\(selected ? ">" : " ") \(state.name(lessons[index]))", row: row, column: 1, style: selected ? .selected : .normal, width: titleColumn - 2)
            screen.put(lessons[index].title, row: row, column: titleColumn, style: selected ? .selected : .dim)
        }
        if lessons.isEmpty { screen.put("No lesson matches '\(state.filter)'. Esc clears the filter.", row: 2, column: 2, style: .warning) }
        rule(height - 5)
        // A summary states the lesson's outcome, so a class that is to predict it does not see it.
        if lessons.indices.contains(state.selection), !state.classroom { paragraph(lessons[state.selection].summary, row: height - 4, lines: 2) }
        let filter = state.filtering ? "/\(state.filter)_" : state.filter.isEmpty ? "" : "filter: \(state.filter) (Esc clears)"
        screen.put(filter, row: height - 2, column: 1, style: .accent)
        footer("Enter open   PgUp PgDn page   / filter   ? help   q quit")
    }
}
