import Simulation

/// Applies one key to the state; returns the work the app must do, if any. Pure: no I/O, no drawing.
public func update(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    if key == .resize { return nil }
    state.note = nil
    if state.showHelp {
        if key == .character("?") || key == .character("q") || key == .escape { state.showHelp = false }
        scrollPage(&state.helpScroll, key, state)
        return nil
    }
    if state.screen == .picker, state.filtering { return updateFilter(&state, key) }
    if key == .character("?") {
        state.showHelp = true
        state.helpScroll = 0
        return nil
    }
    if state.awaitingPrediction, state.screen == .walkthrough, key == .character("y") || key == .character("n") {
        let accepted = state.report?.trusted ?? false
        let right = (key == .character("y")) == accepted
        state.score = (state.score.right + (right ? 1 : 0), state.score.asked + 1)
        state.predictionResult = right ? "You were right." : "Not this time."
        state.awaitingPrediction = false
        return nil
    }
    switch state.screen {
    case .picker: return updatePicker(&state, key)
    case .walkthrough: return updateWalkthrough(&state, key)
    case .attacker, .inspector:
        if key == .character("q") || key == .escape || key == .character("x") || key == .character("i") { state.screen = .walkthrough }
        scrollPage(&state.pageScroll, key, state)
        return nil
    case .matrix: return updateMatrix(&state, key)
    case .pins: return updatePins(&state, key)
    case .comparison: return updateComparison(&state, key)
    case .lab: return updateLab(&state, key)
    }
}

private func updateFilter(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    switch key {
    case .escape, .tab: state.filtering = false
    case .enter:
        state.filtering = false
        state.selection = min(state.selection, max(0, state.filtered.count - 1))
        return updatePicker(&state, .enter)
    case .backspace:
        if !state.filter.isEmpty { state.filter.removeLast() }
        state.selection = 0
    case .character(let character):
        // A new filter starts at its first match, so Enter opens that one.
        state.filter.append(character)
        state.selection = 0
    case .up, .down:
        state.filtering = false
        return updatePicker(&state, key)
    default: break
    }
    state.selection = min(state.selection, max(0, state.filtered.count - 1))
    return nil
}

private func updatePicker(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    let count = state.filtered.count
    switch key {
    case .character("k"): scroll(&state.selection, .up, limit: max(0, count - 1), page: 1)
    case .character("j"): scroll(&state.selection, .down, limit: max(0, count - 1), page: 1)
    case .up, .down, .home, .end, .pageUp, .pageDown: scroll(&state.selection, key, limit: max(0, count - 1), page: pickerPage(state))
    case .character("/"):
        state.filtering = true
    case .escape:
        state.filter = ""
        state.selection = 0
    case .enter:
        guard count > 0 else { return nil }
        state.scenario = state.filtered[state.selection]
        state.lesson = state.scenario
        state.report = nil
        state.departure = nil
        state.change = nil
        state.matrix = nil
        state.comparison = nil
        state.focus = .diagram
        return .run
    case .character("q"):
        return .quit
    default: break
    }
    return nil
}

/// Lessons a PgUp or PgDn moves in the list: about a screenful.
private func pickerPage(_ state: ConsoleState) -> Int { max(1, state.viewport.rows - 8) }

/// Moves a scroll position or cursor with ↑/↓/PgUp/PgDn/Home/End, within 0...`limit`; false for any other key.
@discardableResult
func scroll(_ position: inout Int, _ key: Key, limit: Int, page: Int) -> Bool {
    switch key {
    case .up: position -= 1
    case .down: position += 1
    case .pageUp: position -= max(1, page)
    case .pageDown: position += max(1, page)
    case .home: position = 0
    case .end: position = limit
    default: return false
    }
    position = max(0, min(limit, position))
    return true
}

/// Scrolls the page on screen (help, opened item, inspector, a client's trace) by what it shows at the viewport's size.
private func scrollPage(_ position: inout Int, _ key: Key, _ state: ConsoleState) {
    let rows = Canvas.pageRows(state.viewport)
    let count = Canvas.pageContent(state, width: state.viewport.columns)?.count ?? 0
    scroll(&position, key, limit: max(0, count - rows), page: rows - 1)
}

private func updateWalkthrough(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    guard let scenario = state.scenario else { return nil }
    if state.opened != nil {
        if key == .enter || key == .character("q") || key == .escape { state.opened = nil }
        scrollPage(&state.pageScroll, key, state)
        return nil
    }
    // Before the class answers, the walk stops at the decision (which the screen hides).
    let end = max(0, (state.report?.events.count ?? 1) - 1)
    let last = state.revealed ? end : min(end, state.decidingStep ?? end)
    let lesson = state.lesson ?? scenario
    if let report = state.report, updateFocusedPane(&state, report, key, last: last) { return nil }
    switch key {
    case .right, .character(" "): state.step = min(last, state.step + 1)
    case .left: state.step = max(0, state.step - 1)
    case .character("j"): state.step = state.decidingStep ?? state.step
    case .character("q"), .escape:
        state.screen = .picker
    case .character("x"):
        guard state.revealed else { return answerFirst(&state, "what the attacker read") }
        state.screen = .attacker
        state.pageScroll = 0
    case .character("i"):
        state.screen = .inspector
        state.pageScroll = 0
    case .character("P"):
        state.pinCursor = 0
        state.screen = .pins
    case .character("m"):
        guard state.revealed else { return answerFirst(&state, "the matrix") }
        state.screen = .matrix
        return state.matrix?.scenarioID == scenario.id ? nil : .computeMatrix
    case .character("C"):
        guard state.revealed else { return answerFirst(&state, "the comparison") }
        state.screen = .comparison
        state.showsComparisonTrace = false
        guard state.comparison == nil else { return nil }
        state.comparisonCursor = 0
        return .computeComparison
    case .character(let character):
        guard let change = LessonKey.edit(for: character, lesson: lesson) else { return nil }
        return edit(&state, change)
    default: break
    }
    return nil
}

/// Tab, Enter and the scrolling keys, for the pane with the focus; false for any other key.
private func updateFocusedPane(_ state: inout ConsoleState, _ report: RunReport, _ key: Key, last: Int) -> Bool {
    let traceCount = Canvas.traceSteps(state, report).count
    let traceCursor = state.traceCursor ?? Canvas.decidingTraceIndex(report)
    switch (key, state.focus) {
    case (.tab, _):
        let panes = ConsoleState.Focus.allCases
        state.focus = panes[((panes.firstIndex(of: state.focus) ?? 0) + 1) % panes.count]
    case (.enter, .diagram):
        state.opened = .event(state.step)
        state.pageScroll = 0
    case (.enter, .trace):
        state.opened = .traceStep(min(traceCursor, traceCount - 1))
        state.pageScroll = 0
    case (_, .diagram): return scroll(&state.step, key, limit: last, page: 10)
    case (_, .trace):
        var cursor = traceCursor
        guard scroll(&cursor, key, limit: max(0, traceCount - 1), page: 5) else { return false }
        state.traceCursor = cursor
    case (_, .lesson):
        // Only the lesson's scrolling depends on how the panes share the screen.
        let layout = Canvas.walkthroughLayout(state, report, size: state.viewport)
        return scroll(&state.lessonScroll, key, limit: layout.lessonMaxScroll, page: layout.lessonVisible - 1)
    }
    return true
}

/// A key that would show the answer, pressed while the class has not answered: it waits, and says why.
private func answerFirst(_ state: inout ConsoleState, _ what: String) -> Effect? {
    state.note = "\(what) shows the answer: first answer the question (y or n)"
    return nil
}

private func updatePins(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    guard let scenario = state.scenario else { return nil }
    let ids = scenario.certificateIDs
    switch key {
    case .up, .character("k"): state.pinCursor = LessonKey.pinsCursor(state.pinCursor, movedBy: -1, count: ids.count)
    case .down, .character("j"): state.pinCursor = LessonKey.pinsCursor(state.pinCursor, movedBy: 1, count: ids.count)
    case .character(" "), .enter:
        guard ids.indices.contains(state.pinCursor) else { return nil }
        return edit(&state, .togglePin(ids[state.pinCursor]), stay: true)
    case .character("q"), .escape, .character("P"):
        state.screen = .walkthrough
    default: break
    }
    return nil
}

private func updateMatrix(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    guard let matrix = state.matrix else {
        if key == .character("q") || key == .escape { state.screen = .walkthrough }
        return nil
    }
    let rows = matrix.policies.count
    let columns = matrix.columns.count
    switch key {
    case .up, .character("k"): state.matrixCursor.row = max(0, state.matrixCursor.row - 1)
    case .down, .character("j"): state.matrixCursor.row = min(rows - 1, state.matrixCursor.row + 1)
    case .left, .character("h"): state.matrixCursor.column = max(0, state.matrixCursor.column - 1)
    case .right, .character("l"): state.matrixCursor.column = min(columns - 1, state.matrixCursor.column + 1)
    case .pageUp: state.matrixCursor.row = max(0, state.matrixCursor.row - 10)
    case .pageDown: state.matrixCursor.row = min(rows - 1, state.matrixCursor.row + 10)
    case .character("g"): state.showsMatrixLegend.toggle()
    case .character("q"), .escape, .character("m"): state.screen = .walkthrough
    case .enter:
        return edit(&state, .matrixCell(matrix, matrix.policies[state.matrixCursor.row], matrix.columns[state.matrixCursor.column]))
    default: break
    }
    return nil
}

/// The comparison: j/k choose a client, Enter opens its trace (↑/↓ scroll it), q closes the trace, then the screen.
private func updateComparison(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    let rows = state.comparison?.rows.count ?? 0
    if state.showsComparisonTrace, key != .character("q"), key != .escape, key != .character("C") {
        scrollPage(&state.pageScroll, key, state)
        return nil
    }
    switch key {
    case .up, .character("k"): state.comparisonCursor = max(0, state.comparisonCursor - 1)
    case .down, .character("j"): state.comparisonCursor = min(max(0, rows - 1), state.comparisonCursor + 1)
    case .enter:
        state.showsComparisonTrace = rows > 0
        state.pageScroll = 0
    case .character("q"), .escape, .character("C"):
        if state.showsComparisonTrace { state.showsComparisonTrace = false } else { state.screen = .walkthrough }
    default: break
    }
    return nil
}

/// An edit: the engine applies it and words it; the new scenario is re-run for real, and `change`
/// says what changed once the verdict is in.
private func edit(_ state: inout ConsoleState, _ edit: ScenarioEdit, stay: Bool = false) -> Effect? {
    guard let scenario = state.scenario else { return nil }
    let (edited, change) = edit.apply(to: scenario)
    state.scenario = edited
    state.pendingChange = change
    if edit.changesTheMatrix { state.matrix = nil }
    // Every setting is some client's: the comparison no longer describes the edited lesson.
    state.comparison = nil
    if !stay { state.screen = .walkthrough }
    return .run
}
