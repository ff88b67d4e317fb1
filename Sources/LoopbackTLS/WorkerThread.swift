import Foundation

/// A joinable OS thread. Every thread a run starts is joined before the run returns, so a test can
/// count threads and descriptors before and after.
final class WorkerThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let joined = Locked(false)

    init(_ body: @escaping @Sendable () -> Void) throws {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let status = pthread_create(&thread, nil, { raw in
            // Glibc's pthread_setname_np is not imported; a thread may rename itself through procfs.
            if let comm = fopen("/proc/thread-self/comm", "w") {
                fputs(WorkerThread.name, comm)
                fclose(comm)
            }
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw NetworkError.socket(operation: "pthread_create", reason: String(cString: strerror(status)))
        }
    }

    /// What `/proc/self/task/*/comm` shows for these threads, so a test can count them.
    static let name = "mitmsim-worker"

    /// Waits for the thread to finish; later calls return at once.
    func join() {
        let first = joined.withLock { done in
            defer { done = true }
            return !done
        }
        if first { pthread_join(thread, nil) }
    }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}

/// A value guarded by a lock (Foundation's NSLock): small, and free of Swift-version surprises.
package final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    package init(_ value: Value) { self.value = value }

    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
