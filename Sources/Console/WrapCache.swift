import Foundation

/// Text already wrapped, by what was wrapped and how wide: the walkthrough lays out the same sentences on every key
/// (each ↓ in the lesson pane lays out the lesson, the trace and the events again to bound the scroll), and wrapping
/// them is most of the work. Wrapping is pure, so a kept result is the one wrapping again would give. Bounded:
/// emptied when it holds `limit` entries.
// @unchecked: `entries` is read and written only while `lock` is held.
final class WrapCache<Value: Sendable>: @unchecked Sendable {
    struct Key: Hashable {
        var text: String
        var width: Int
        var hanging: Int
    }

    private let lock = NSLock()
    private var entries: [Key: Value] = [:]
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The kept result for `text` at `width` (and `hanging`), or `wrap`'s, kept.
    func lines(_ text: String, width: Int, hanging: Int = 0, _ wrap: () -> Value) -> Value {
        let key = Key(text: text, width: width, hanging: hanging)
        if let kept = lock.withLock({ entries[key] }) { return kept }
        let made = wrap()
        lock.withLock {
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries[key] = made
        }
        return made
    }
}
