import Simulation

/// Draws the state into a screen buffer. Pure; every sentence comes from the engine (events, trace steps,
/// lesson text, verdicts), so the screen and the headless report always say the same thing.
public func render(_ state: ConsoleState, size: Size) -> ScreenBuffer {
    var screen = ScreenBuffer(width: size.columns, height: size.rows)
    guard size.columns >= 80, size.rows >= 24 else {
        screen.put("Terminal too small: \(size.columns)×\(size.rows).", row: 0, column: 0, style: .warning)
        screen.put("mitmsim needs at least 80×24. Enlarge the window, or press q.", row: 1, column: 0)
        return screen
    }
    var canvas = Canvas(screen: screen)
    if state.showHelp {
        canvas.help(state)
    } else {
        switch state.screen {
        case .picker: canvas.picker(state)
        case .walkthrough: canvas.walkthrough(state)
        case .attacker: canvas.attackerView(state)
        case .inspector: canvas.inspector(state)
        case .matrix: canvas.matrix(state)
        case .pins: canvas.pins(state)
        case .lab: canvas.lab(state)
        case .comparison: canvas.comparison(state)
        }
    }
    return canvas.screen
}
