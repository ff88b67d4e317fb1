import Simulation

/// The walkthrough's sequence diagram: one lane per party (client, proxy, origin; client and origin
/// alone when nobody is on the path), each message an arrow from its sender's lane to its receiver's
/// with its label on the arrow, and what a party did alone written beside its own lane.
extension Canvas {
    /// An event as the diagram draws it; `text` is nil for the decision while the class has not answered.
    struct DiagramEvent {
        let index: Int
        let actor: NetworkEvent.Actor
        let peer: NetworkEvent.Actor?
        let text: String
        let style: Style
    }

    /// The title over a party's lane.
    static func laneTitle(_ actor: NetworkEvent.Actor) -> String {
        switch actor {
        case .client: "client"
        case .proxy: "proxy / attacker"
        case .origin: "origin"
        }
    }

    /// Where each party's lane runs, for a diagram `width` columns wide.
    static func laneColumns(width: Int, withProxy: Bool) -> [NetworkEvent.Actor: Int] {
        var columns: [NetworkEvent.Actor: Int] = [.client: 2, .origin: width - 3]
        if withProxy { columns[.proxy] = width / 2 }
        return columns
    }

    /// The lines of `event`'s label, wrapped to the room its arrow or its lane leaves.
    static func labelLines(_ event: DiagramEvent, lanes: [NetworkEvent.Actor: Int], width: Int) -> [String] {
        wrap(event.text, width: labelRoom(event, lanes: lanes, width: width))
    }

    private static func labelRoom(_ event: DiagramEvent, lanes: [NetworkEvent.Actor: Int], width: Int) -> Int {
        let from = lanes[event.actor] ?? 0
        if let peer = event.peer, let to = lanes[peer], to != from { return max(8, abs(to - from) - 5) }
        return max(8, event.actor == .origin ? from - 3 : width - from - 3)
    }

    /// Draws the lane titles on `top - 1` and the events around `current` on `rows` rows from `top`.
    mutating func diagram(_ events: [DiagramEvent], current: Int, top: Int, rows: Int, spacing: Int, withProxy: Bool) {
        let lanes = Self.laneColumns(width: width, withProxy: withProxy)
        for actor in [NetworkEvent.Actor.client, .proxy, .origin] {
            guard let column = lanes[actor] else { continue }
            let (title, style) = (Self.laneTitle(actor), Self.style(of: actor))
            screen.put(title, row: top - 1, column: max(0, min(width - title.count, column - title.count / 2)), style: style)
        }
        for row in top..<(top + rows) {
            for column in lanes.values { screen.put("│", row: row, column: column, style: .border) }
        }
        guard let focus = events.firstIndex(where: { $0.index == current }) ?? events.indices.last else { return }
        // Every label whole: when they do not all fit, the window moves with the current event.
        let heights = events.map { Self.labelLines($0, lanes: lanes, width: width).count }
        var (first, last) = (focus, focus)
        var used = heights[focus]
        func cost(_ index: Int) -> Int { heights[index] + spacing - 1 }
        // Up to half the rows the current event leaves go to what led to it.
        while first > 0, used - heights[focus] + cost(first - 1) <= (rows - heights[focus]) / 2 {
            first -= 1
            used += cost(first)
        }
        while last + 1 < events.count, used + cost(last + 1) <= rows {
            last += 1
            used += cost(last)
        }
        while first > 0, used + cost(first - 1) <= rows {
            first -= 1
            used += cost(first)
        }
        var row = top
        for index in first...last {
            let event = events[index]
            let lines = Array(Self.labelLines(event, lanes: lanes, width: width).prefix(top + rows - row))
            guard !lines.isEmpty else { break }
            if event.index == current {
                for offset in 0..<lines.count { screen.paint(row: row + offset, column: 0, width: width, style: .selected) }
            }
            draw(event, lines: lines, lanes: lanes, row: row)
            row += lines.count + spacing - 1
        }
    }

    private mutating func draw(_ event: DiagramEvent, lines: [String], lanes: [NetworkEvent.Actor: Int], row: Int) {
        let from = lanes[event.actor] ?? 0
        guard let peer = event.peer, let to = lanes[peer], to != from else {
            screen.put("●", row: row, column: from, style: event.style)
            // Each label is held to its side of the lane: escaping makes a label with control characters longer.
            for (offset, line) in lines.enumerated() {
                let column = event.actor == .origin ? from - 2 - line.count : from + 2
                screen.put(line, row: row + offset, column: column, style: event.style, width: event.actor == .origin ? from - 1 - column : nil)
            }
            return
        }
        let (low, high) = (min(from, to), max(from, to))
        for (offset, line) in lines.dropLast().enumerated() {
            screen.put(line, row: row + offset, column: low + 3, style: event.style, width: high - low - 4)
        }
        let arrowRow = row + lines.count - 1
        let shaft = String(repeating: "─", count: high - low - 1)
        screen.put(shaft, row: arrowRow, column: low + 1, style: event.style)
        screen.put(to > from ? "▶" : "◀", row: arrowRow, column: to > from ? high - 1 : low + 1, style: event.style)
        screen.put(" \(lines.last ?? "") ", row: arrowRow, column: low + 2, style: event.style, width: high - low - 3)
    }
}
