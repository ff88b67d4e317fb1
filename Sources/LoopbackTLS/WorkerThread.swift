import Foundation

/// A joinable OS thread. Every thread a run starts is joined before the run returns, so a test can
/// count threads and descriptors before and after.
final class WorkerThread: Sendable {
    private let thread: pthread_t
    private let joined = Locked(false)

    init(_ body: @escaping @Sendable () -> Void) throws {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                // Glibc's pthread_setname_np is not imported; a thread may rename itself through procfs.
                if let comm = fopen("/proc/thread-self/comm", "w") {
                    fputs(WorkerThread.name, comm)
                    fclose(comm)
                }
                // `raw` is the box passed to pthread_create just above, never nil.
                guard let raw else { return nil }
                Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, box)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw NetworkError.socket(operation: "pthread_create", reason: String(cString: strerror(status)))
        }
        self.thread = thread
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
