/// The live lab: `c` switches between the connections and the commands to paste, ↑/↓ move through the
/// commands, q leaves the commands, then stops the lab.
func updateLab(_ state: inout ConsoleState, _ key: Key) -> Effect? {
    guard var lab = state.lab else { return key == .character("q") || key == .escape ? .quit : nil }
    defer { state.lab = lab }
    guard lab.showsCommands else {
        switch key {
        case .character("c"): lab.showsCommands = true
        case .character("q"), .escape: return .quit
        default: break
        }
        return nil
    }
    let last = max(0, lab.commands.count - 1)
    switch key {
    case .up, .character("k"), .pageUp: lab.commandCursor = max(0, lab.commandCursor - 1)
    case .down, .character("j"), .pageDown: lab.commandCursor = min(last, lab.commandCursor + 1)
    case .home: lab.commandCursor = 0
    case .end: lab.commandCursor = last
    case .character("c"), .character("q"), .escape: lab.showsCommands = false
    default: break
    }
    return nil
}
