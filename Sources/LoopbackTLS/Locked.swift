import Synchronization

/// A value guarded by a lock, shared between threads (the standard library's `Mutex`, in a class so
/// that closures and other objects can share it).
package final class Locked<Value>: Sendable {
    private let mutex: Mutex<Value>

    package init(_ value: sending Value) { mutex = Mutex(value) }

    package func withLock<T, E: Error>(_ body: (inout sending Value) throws(E) -> sending T) throws(E) -> sending T {
        try mutex.withLock(body)
    }
}
