import Foundation
import Synchronization

/// Values worked out once per test process and shared by every test that asks for the same key: a lesson's run that
/// many suites read costs its handshakes once. Each key is worked out once, even when two tests ask at the same time;
/// tests asking for other keys meanwhile do not wait.
public final class Memo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private final class Slot: @unchecked Sendable {
        // @unchecked: `value` is read and written only while `lock` is held.
        let lock = NSLock()
        var value: Value?
    }

    private let slots = Mutex<[Key: Slot]>([:])
    private let make: @Sendable (Key) -> Value

    public init(_ make: @escaping @Sendable (Key) -> Value) {
        self.make = make
    }

    public subscript(key: Key) -> Value {
        let slot = slots.withLock { slots in
            if let slot = slots[key] { return slot }
            let slot = Slot()
            slots[key] = slot
            return slot
        }
        return slot.lock.withLock {
            if let value = slot.value { return value }
            let value = make(key)
            slot.value = value
            return value
        }
    }
}
