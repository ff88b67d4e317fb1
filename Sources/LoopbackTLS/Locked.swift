import Foundation

/// A value guarded by a lock, shared between threads.
///
/// The lock is a pthread mutex rather than the standard library's `Mutex`: the thread sanitizer sees
/// pthread locking and so checks every access made under this lock, whereas `Mutex` locks inside the
/// uninstrumented runtime, where every access would look unsynchronised to it.
// @unchecked: `value` is only ever touched between pthread_mutex_lock and pthread_mutex_unlock.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    package init(_ value: sending Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<T, E: Error>(_ body: (inout sending Value) throws(E) -> sending T) throws(E) -> sending T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
