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
    case .character("k"): scroll(&lab.commandCursor, .up, limit: last, page: 1)
    case .character("j"): scroll(&lab.commandCursor, .down, limit: last, page: 1)
    case .character("c"), .character("q"), .escape: lab.showsCommands = false
    default: scroll(&lab.commandCursor, key, limit: last, page: 1)
    }
    return nil
}
